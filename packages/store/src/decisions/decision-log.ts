import type { DecisionRecord, ListDecisionsQuery, Page } from '@hitl/protocol';

/** A record before the log gives it an id. */
export type NewDecisionRecord = Omit<DecisionRecord, 'id'>;

/**
 * The decision audit log: every outcome of every inquiry, newest first when read. The memory log
 * serves an embedded node; the Redis log (a stream) is shared by every node.
 */
export interface DecisionLog {
  append(record: NewDecisionRecord): Promise<DecisionRecord>;
  /** Newest first, filtered; the cursor is the id of the last record of the previous page. */
  list(query: ListDecisionsQuery): Promise<Page<DecisionRecord>>;
  get(id: string): Promise<DecisionRecord | null>;
  /** Records at or after `since` (epoch ms), newest first, at most `max` of them. */
  since(since: number, max: number): Promise<DecisionRecord[]>;
}

/** Record ids look like Redis stream ids, `<ms>-<seq>`, in both logs. */
export const RECORD_ID = /^\d{1,15}-\d{1,15}$/;

/** True when the record passes every filter of the query (cursor and limit aside). */
export function matches(record: DecisionRecord, query: ListDecisionsQuery): boolean {
  if (query.strategy !== undefined && record.strategy !== query.strategy) return false;
  if (query.outcome !== undefined && record.outcome !== query.outcome) return false;
  if (query.user !== undefined && record.userId !== query.user) return false;
  if (query.since !== undefined && record.at < query.since) return false;
  return true;
}

/** Orders `<ms>-<seq>` ids: negative when `a` is older. */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

/** Contexts are cut to this many characters in the log; the full one stays on the inquiry. */
export const AUDIT_CONTEXT_CHARS = 2000;

/** The context as the log keeps it: as given when small, else a cut JSON string. */
export function auditContext(context: DecisionRecord['context']): DecisionRecord['context'] {
  if (context === undefined) return undefined;
  const text = typeof context === 'string' ? context : JSON.stringify(context);
  if (text.length <= AUDIT_CONTEXT_CHARS) return context;
  return `${text.slice(0, AUDIT_CONTEXT_CHARS - 1)}…`;
}
