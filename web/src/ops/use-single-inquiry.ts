import type { Inquiry } from '@hitl/protocol';
import { useCallback, useEffect, useState } from 'react';
import { getInquiry } from './api';

/**
 * The inquiry an address names, read on its own: a deep link may name one the list did not load.
 * `reload` re-reads it (a live event for it, a cancel).
 */
export function useSingleInquiry(token: string, inquiryId: string | null) {
  const [state, setState] = useState<{ inquiry: Inquiry | null; missing: boolean }>({
    inquiry: null,
    missing: false,
  });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `generation` re-reads on demand.
  useEffect(() => {
    if (!inquiryId) {
      setState({ inquiry: null, missing: false });
      return;
    }
    setState((s) => (s.inquiry?.inquiryId === inquiryId ? s : { inquiry: null, missing: false }));
    const abort = new AbortController();
    getInquiry(token, inquiryId, abort.signal).then(
      (inquiry) => {
        if (!abort.signal.aborted) setState({ inquiry, missing: inquiry === null });
      },
      () => undefined,
    );
    return () => abort.abort();
  }, [token, inquiryId, generation]);

  const current = state.inquiry?.inquiryId === inquiryId ? state.inquiry : null;
  return { inquiry: current, missing: state.missing, reload };
}
