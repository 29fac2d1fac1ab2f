/**
 * The audit chain's Redis keys: all under the one hash tag `{audit}` (one Cluster slot), so the
 * append's compare-and-set is one script. A decision's record itself waits in its own inquiry's hash
 * (field {@link auditField}, the inquiry's slot) until it is appended.
 */
export interface AuditKeys {
  /** String `"<seq> <hash>"`: the chain's head (absent: empty). */
  head: string;
  /** List: entry n at index n-1, as JSON. */
  entries: string;
  /** Hash: record id → seq (the appender's idempotency). */
  ids: string;
  /**
   * Hash: record id → JSON, the records decided but not yet appended: `{ref: <inquiryId>, at}` names a
   * record written by that inquiry's own step (the field {@link auditField} of its hash), named here
   * just before the step; `{record, at}` holds one staged by a caller outside a store step.
   */
  outbox: string;
}

/** The chain's keys under `prefix` (the store's, e.g. `hitl:`). */
export function auditKeys(prefix: string): AuditKeys {
  return {
    head: `${prefix}{audit}:head`,
    entries: `${prefix}{audit}:entries`,
    ids: `${prefix}{audit}:ids`,
    outbox: `${prefix}{audit}:outbox`,
  };
}

/** The inquiry hash field a decision's step writes its record to. */
export function auditField(recordId: string): string {
  return `audit:${recordId}`;
}

/** What the outbox keeps for a record its inquiry's step writes. */
export function outboxRef(inquiryId: string, at: number): string {
  return JSON.stringify({ ref: inquiryId, at });
}
