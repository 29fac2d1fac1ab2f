import { createHash } from 'node:crypto';
import type { Decision } from '@hitl/decisions';
import type { AuditRecord, Inquiry, Resolution, Vote } from '@hitl/protocol';
import { canonicalJson } from '@hitl/store';
import type { Ending } from '../core/outcomes.js';

/*
 * The records the node puts in the audit chain, one per decision: built before the store step that
 * makes the decision (which writes them exactly when it wins), so a record says what was decided, not
 * what a later read found. Ids are per decision, so an appender retried anywhere adds each once.
 */

/** What a record names of its inquiry: all of it when the deciding node read it; the id at least. */
export type InquiryRef = Pick<Inquiry, 'inquiryId'> & Partial<Pick<Inquiry, 'userId' | 'kind' | 'action'>>;

/** Lowercase hex SHA-256 of JCS(value): how records name arguments without repeating them. */
export function jsonDigest(value: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(value ?? {}), 'utf8')
    .digest('hex');
}

/** The record type of a resolution: who or what ended the inquiry. */
function endType(resolution: Resolution): string {
  switch (resolution.resolvedBy.kind) {
    case 'human':
      return resolution.status === 'answered' ? 'answer' : 'refusal';
    case 'decision-agent':
      return 'fallback';
    case 'agent':
    case 'ops':
      return 'cancel';
    default:
      return 'timeout';
  }
}

/** What every record of an inquiry carries: its id, whose it is, and for an approval the action's digest. */
function about(inquiry: InquiryRef): Record<string, unknown> {
  const fields: Record<string, unknown> = { inquiryId: inquiry.inquiryId };
  if (inquiry.userId !== undefined) fields.userId = inquiry.userId;
  if (inquiry.kind !== undefined) fields.kind = inquiry.kind;
  if (inquiry.action) {
    fields.action = {
      server: inquiry.action.server,
      tool: inquiry.action.tool,
      argumentsDigest: jsonDigest(inquiry.action.arguments),
    };
  }
  return fields;
}

/** The passkey an approval was made with (`passkey: <credential id>`), when the ending names one. */
function passkeyOf(ending: Ending | undefined): Record<string, unknown> {
  const device = ending && 'device' in ending ? ending.device : undefined;
  return device?.passkey ? { passkey: device.passkey } : {};
}

/** The record of an inquiry's end (answer, refusal, timeout, cancel or fallback): `inquiry:<id>:end`. */
export function endRecord(
  inquiry: InquiryRef,
  resolution: Resolution,
  ending?: Ending,
  decision?: Decision,
): AuditRecord {
  const record: AuditRecord = {
    id: `inquiry:${inquiry.inquiryId}:end`,
    type: endType(resolution),
    at: resolution.resolvedAt,
    ...about(inquiry),
    status: resolution.status,
    by: resolution.resolvedBy,
    ...passkeyOf(ending),
  };
  if (resolution.answer !== undefined) record.answer = resolution.answer;
  // An approve with edited arguments: what ran is these, not the asked ones (both digests kept).
  if (ending?.type === 'answer' && ending.approved && ending.approved.changed.length > 0) {
    record.approved = {
      argumentsDigest: jsonDigest(ending.approved.arguments),
      changed: ending.approved.changed,
    };
  }
  if (ending?.type === 'cancel' && ending.ops) record.ops = ending.ops;
  if (decision?.model) record.model = decision.model;
  return record;
}

/** One person's vote on a quorum approval: `inquiry:<id>:vote:<user>`. */
export function voteRecord(inquiry: InquiryRef, vote: Vote, ending?: Ending): AuditRecord {
  return {
    id: `inquiry:${inquiry.inquiryId}:vote:${vote.userId}`,
    type: 'vote',
    at: vote.at,
    ...about(inquiry),
    vote: vote.vote,
    by: {
      userId: vote.userId,
      ...(vote.deviceId ? { deviceId: vote.deviceId } : {}),
      ...(vote.deviceName ? { deviceName: vote.deviceName } : {}),
    },
    ...passkeyOf(ending),
  };
}

/** An escalation that added people to a pending inquiry: `inquiry:<id>:escalation`. */
export function escalationRecord(inquiry: Inquiry, at: number): AuditRecord {
  const { escalation } = inquiry;
  return {
    id: `inquiry:${inquiry.inquiryId}:escalation`,
    type: 'escalation',
    at,
    ...about(inquiry),
    users: escalation?.users ?? [],
    ...(escalation?.team ? { team: escalation.team } : {}),
  };
}
