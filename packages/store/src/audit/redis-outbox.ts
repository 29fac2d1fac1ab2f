import type { AuditRecord } from '@hitl/protocol';
import type { Cluster, Redis } from 'ioredis';
import type { StepAudit } from './audit-chain.js';
import { outboxRef } from './redis-audit-keys.js';

/** A step's records as the scripts take them: id and JSON, `''` for none. */
export function recordArgs(record: AuditRecord | undefined): [string, string] {
  return record ? [record.id, JSON.stringify(record)] : ['', ''];
}

/** Every record of a step. */
export function stepRecords(audit: StepAudit | undefined): AuditRecord[] {
  if (!audit) return [];
  return audit.end ? [audit.record, audit.end] : [audit.record];
}

/**
 * Names a store step's records in the chain's outbox before the step runs, so a node that dies right
 * after the step leaves them findable. On one Redis the command is sent and the step follows it on the
 * same connection (Redis runs them in that order): no wait. On a Cluster the outbox lives in another
 * slot, so the step waits for it. Returns what to await before reading the step's reply.
 *
 * A step that does not write its record (it lost; a second vote; a record id named by an earlier
 * attempt) leaves its name for `drainOutbox`, which drops it once the inquiry has ended without that
 * record: every attempt at one record id names the same inquiry, so no attempt may remove a name
 * another attempt's win still needs.
 */
export async function nameInOutbox(
  redis: Redis | Cluster,
  outbox: string,
  inquiryId: string,
  records: readonly AuditRecord[],
  now: number,
  atOnce: boolean,
): Promise<Promise<unknown>> {
  if (records.length === 0) return Promise.resolve();
  const ref = outboxRef(inquiryId, now);
  const named = redis.hset(outbox, ...records.flatMap((record) => [record.id, ref]));
  if (!atOnce) await named;
  return named;
}
