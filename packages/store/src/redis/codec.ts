import type { Inquiry, InquiryStatus, Resolution, Vote } from '@hitl/protocol';
import { pickResolution } from '../resolution.js';
import type { NewInquiry } from '../store.js';

/**
 * The inquiry hash's fields, in the order every read (HMGET and the scripts) returns them: the
 * immutable inquiry, then what changes while it is pending (a quorum's votes, the escalation time).
 */
export const HASH_FIELDS = ['inquiry', 'status', 'resolution', 'suggested', 'votes', 'escalatedAt'] as const;

/** How a new inquiry is written: the immutable part and the (mutable) suggested answer. */
export interface EncodedInquiry {
  inquiry: string;
  /** JSON, or '' for none. */
  suggested: string;
}

export function encodeNew(input: NewInquiry, inquiryId: string): EncodedInquiry {
  const { suggestedAnswer, ...rest } = input;
  return {
    inquiry: JSON.stringify({ ...rest, inquiryId }),
    suggested: suggestedAnswer === undefined ? '' : JSON.stringify(suggestedAnswer),
  };
}

export function encodeResolution(resolution: Resolution): string {
  return JSON.stringify(pickResolution(resolution));
}

/** An inquiry from its hash fields (as in {@link HASH_FIELDS}); null when the hash is missing. */
export function decodeFields(fields: readonly (string | null)[]): Inquiry | null {
  const [inquiry, status, resolution, suggested, votes, escalatedAt] = fields;
  if (!inquiry || !status) return null;
  return assemble(
    JSON.parse(inquiry),
    status as InquiryStatus,
    resolution ? JSON.parse(resolution) : null,
    suggested ? JSON.parse(suggested) : undefined,
    {
      votes: votes ? JSON.parse(votes) : undefined,
      escalatedAt: escalatedAt ? Number(escalatedAt) : undefined,
    },
  );
}

/**
 * The resolved inquiry from a resolution message (end-pending.lua: the changing fields only) and the
 * pending inquiry a waiter read before; null for a message this store did not send.
 */
export function decodeMessage(message: string, pending: Inquiry): Inquiry | null {
  try {
    const { resolution, suggested, votes, escalatedAt } = JSON.parse(message) as {
      resolution?: Resolution;
      suggested?: Inquiry['suggestedAnswer'] | null;
      votes?: Vote[] | null;
      escalatedAt?: number | null;
    };
    if (!resolution?.status) return null;
    // The stored inquiry as created: what a pending read adds (suggestion, votes, escalation time)
    // comes from the message instead.
    const { status: _status, suggestedAnswer: _suggested, votes: _votes, ...created } = pending;
    return assemble(created as Inquiry, resolution.status, resolution, suggested ?? undefined, {
      votes: votes ?? undefined,
      escalatedAt: escalatedAt ?? undefined,
    });
  } catch {
    return null;
  }
}

/**
 * Completes `created` in place (a fresh object: parsed JSON, or a rest copy), not as a spread copy:
 * in optimized code V8 gives each spread copy of a parsed object a hidden class of its own
 * (measured: heap per held call 15.4 → 14.9 KB; bench/results/HISTORY.md, "RSS per held call,
 * session 5").
 */
function assemble(
  created: Inquiry,
  status: InquiryStatus,
  resolution: Resolution | null,
  suggestedAnswer: Inquiry['suggestedAnswer'],
  progress: { votes?: Vote[]; escalatedAt?: number },
): Inquiry {
  const inquiry = created;
  inquiry.status = status;
  if (suggestedAnswer !== undefined) inquiry.suggestedAnswer = suggestedAnswer;
  if (progress.votes !== undefined) inquiry.votes = progress.votes;
  if (progress.escalatedAt !== undefined && inquiry.escalation) {
    inquiry.escalation = { ...inquiry.escalation, escalatedAt: progress.escalatedAt };
  }
  return resolution ? { ...inquiry, ...pickResolution(resolution) } : inquiry;
}
