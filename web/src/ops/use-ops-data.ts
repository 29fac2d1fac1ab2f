import type { DecisionRecord, Inquiry } from '@hitl/protocol';
import { useCallback, useEffect, useState } from 'react';
import { type DecisionFilters, listDecisions, listInquiries } from './api';

export interface OpsData {
  inquiries: Inquiry[];
  /** False when more pages exist than were loaded. */
  complete: boolean;
  /** `null`: the server has no decision log. */
  decisions: DecisionRecord[] | null;
  loading: boolean;
  inquiryError: string | null;
  decisionError: string | null;
  loadedAt: number | null;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Loads the inquiry history and the decision log (each on its own, so one failing leaves the other). */
export function useOpsData(token: string, user: string, decisionFilters: DecisionFilters) {
  const [data, setData] = useState<OpsData>({
    inquiries: [],
    complete: true,
    decisions: null,
    loading: true,
    inquiryError: null,
    decisionError: null,
    loadedAt: null,
  });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `generation` re-runs the load on demand.
  useEffect(() => {
    const abort = new AbortController();
    setData((d) => ({ ...d, loading: true }));
    const inquiries = listInquiries(token, { user: user || undefined }, abort.signal).then(
      (r) => ({ inquiries: r.items, complete: r.complete, inquiryError: null }),
      (e: unknown) => ({ inquiries: [] as Inquiry[], complete: true, inquiryError: message(e) }),
    );
    const decisions = listDecisions(token, decisionFilters, abort.signal).then(
      (r) => ({ decisions: r?.items ?? null, decisionError: null }),
      (e: unknown) => ({ decisions: [] as DecisionRecord[], decisionError: message(e) }),
    );
    void Promise.all([inquiries, decisions]).then(([i, d]) => {
      if (abort.signal.aborted) return;
      setData({ ...i, ...d, loading: false, loadedAt: Date.now() });
    });
    return () => abort.abort();
  }, [token, user, decisionFilters, generation]);

  return { data, reload };
}
