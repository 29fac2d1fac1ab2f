import type { AuditOutbox, StepAudit } from './audit-chain.js';

/**
 * Puts a step's records in the outbox, inside the step: `record`, and `end` when the step ended the
 * inquiry. A store given records but no outbox fails the step rather than drop them.
 */
export function putStep(outbox: AuditOutbox | undefined, audit: StepAudit | undefined, ended: boolean): void {
  if (!audit) return;
  if (!outbox) throw new Error("this store has no audit outbox: it cannot keep the decision's record");
  outbox.put(ended && audit.end ? [audit.record, audit.end] : [audit.record]);
}
