import { type Inquiry, InquirySchema } from '@hitl/protocol';
import { useEffect, useState } from 'react';
import { nodeOrigin } from '../platform/node-url';

/** How many past inquiries the terminal shows. */
export const HISTORY_LIMIT = 50;

export interface History {
  /** Ended inquiries, newest first; `null` until the first read. */
  items: Inquiry[] | null;
  error: string | null;
}

/**
 * The person's past inquiries (`GET /api/inquiries?status=all` with the device token, which
 * lists only its own user's), re-read whenever `refresh` changes (an inquiry just ended).
 */
export function useHistory(token: string, refresh: string): History {
  const [history, setHistory] = useState<History>({ items: null, error: null });
  // biome-ignore lint/correctness/useExhaustiveDependencies: `refresh` re-reads on purpose.
  useEffect(() => {
    const abort = new AbortController();
    const origin = nodeOrigin(localStorage, window.location) ?? window.location.origin;
    fetch(`${origin}/api/inquiries?status=all&limit=${HISTORY_LIMIT}`, {
      headers: { Authorization: `Bearer ${token}` },
      signal: abort.signal,
    })
      .then(async (response) => {
        if (!response.ok) throw new Error(`the server answered ${response.status}`);
        const page = (await response.json()) as { items?: unknown };
        // Checked at this boundary: a malformed item is skipped, not fatal.
        const items = (Array.isArray(page.items) ? page.items : []).flatMap((item) => {
          const parsed = InquirySchema.safeParse(item);
          return parsed.success && parsed.data.status !== 'pending' ? [parsed.data] : [];
        });
        setHistory({ items, error: null });
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        setHistory((h) => ({ ...h, error: error instanceof Error ? error.message : String(error) }));
      });
    return () => abort.abort();
  }, [token, refresh]);
  return history;
}
