import type { DecisionRecord, Inquiry } from '@hitl/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { type DecisionFilters, getInquiry, listDecisions, listInquiries } from './api';

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

  // A live event: read the inquiry and put it in the list (newest first); an ending also refreshes
  // the decision log shortly after, once the audit record is written.
  const decisionTimer = useRef<number | undefined>(undefined);
  const refreshDecisions = useCallback(() => {
    window.clearTimeout(decisionTimer.current);
    decisionTimer.current = window.setTimeout(() => {
      void listDecisions(token, decisionFilters).then(
        (r) => setData((d) => ({ ...d, decisions: r?.items ?? null, decisionError: null })),
        () => undefined,
      );
    }, DECISION_REFRESH_MS);
  }, [token, decisionFilters]);
  useEffect(() => () => window.clearTimeout(decisionTimer.current), []);

  const apply = useCallback(
    async (inquiryId: string, ended: boolean) => {
      const inquiry = await getInquiry(token, inquiryId).catch(() => null);
      if (!inquiry || (user && inquiry.userId !== user)) return;
      setData((d) => ({ ...d, inquiries: upsert(d.inquiries, inquiry), loadedAt: Date.now() }));
      if (ended) refreshDecisions();
    },
    [token, user, refreshDecisions],
  );

  return { data, reload, apply };
}

/** How long after an ending the decision log is re-read (its audit record is appended off the answer's path). */
const DECISION_REFRESH_MS = 400;

/** The list with `inquiry` replaced in place, or added in createdAt order (newest first). */
function upsert(list: Inquiry[], inquiry: Inquiry): Inquiry[] {
  const at = list.findIndex((i) => i.inquiryId === inquiry.inquiryId);
  if (at >= 0) return list.map((i, n) => (n === at ? inquiry : i));
  const next = [...list, inquiry];
  return next.sort((a, b) => b.createdAt - a.createdAt);
}
