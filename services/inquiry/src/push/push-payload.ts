import { createHash } from 'node:crypto';
import {
  type Inquiry,
  type InquiryPush,
  PUSH_LIMITS,
  type ResolvedBy,
  type ResolvedPush,
  utf8Bytes,
} from '@hitl/protocol';

/** The longest TTL push services keep a message (FCM and Mozilla: 4 weeks), in seconds. */
export const MAX_PUSH_TTL_S = 28 * 24 * 3600;
/** A `resolved` push lives at least this long, so a phone that was away still closes its notification. */
export const MIN_RESOLVED_TTL_S = 3600;

/**
 * The `Topic` of every push about one inquiry (RFC 8030 §5.4: at most 32 characters of the URL-safe
 * base64 alphabet): a push service keeps only the newest message per topic, so the `resolved` push
 * replaces an `inquiry` push still waiting for the phone. A hash of the id, 22 characters (132 bits).
 */
export function pushTopic(inquiryId: string): string {
  return createHash('sha256').update(inquiryId).digest('base64url').slice(0, 22);
}

/** The end of the inquiry's answer window (epoch ms): `answerBy`, else the service deadline. */
export function answerDeadline(inquiry: Inquiry): number {
  return inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt;
}

/** `TTL` of the `inquiry` push: whole seconds left to answer (0 when none are), at most 4 weeks. */
export function inquiryTtl(inquiry: Inquiry, now: number): number {
  return Math.min(MAX_PUSH_TTL_S, Math.max(0, Math.floor((answerDeadline(inquiry) - now) / 1000)));
}

/** `TTL` of the `resolved` push: what was left of the window, but at least an hour. */
export function resolvedTtl(inquiry: Inquiry, now: number): number {
  return Math.min(MAX_PUSH_TTL_S, Math.max(MIN_RESOLVED_TTL_S, inquiryTtl(inquiry, now)));
}

/**
 * `text` in at most `maxBytes` of UTF-8, cut between code points (never inside a surrogate pair),
 * at a space when one is near the end, with `…` marking the cut.
 */
export function cutToBytes(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  const budget = maxBytes - utf8Bytes('…');
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8Bytes(char);
    if (bytes + size > budget) break;
    bytes += size;
    end += char.length;
  }
  const head = text.slice(0, end);
  const space = head.search(/\s\S*$/);
  const clean = space > 0 && end - space < 40 ? head.slice(0, space) : head;
  return `${clean.trimEnd()}…`;
}

/** The push sent when an inquiry reaches its user; fits the 4 KB push services carry. */
export function inquiryPush(inquiry: Inquiry): InquiryPush {
  const options =
    inquiry.options && utf8Bytes(JSON.stringify(inquiry.options)) <= PUSH_LIMITS.optionsBytes
      ? inquiry.options
      : undefined;
  return {
    type: 'inquiry',
    inquiryId: inquiry.inquiryId,
    question: cutToBytes(inquiry.question, PUSH_LIMITS.questionBytes),
    kind: inquiry.kind,
    ...(options ? { options } : {}),
    answerBy: answerDeadline(inquiry),
    ...(inquiry.requirePasskey ? { requirePasskey: true } : {}),
  };
}

/**
 * The push sent when the inquiry ends. `resolvedBy` without the device id and the decision agent's
 * rationale: enough to say "answered on <device>", and short.
 */
export function resolvedPush(inquiry: Inquiry): ResolvedPush {
  const by = inquiry.resolvedBy;
  const resolvedBy: ResolvedBy | undefined = by && {
    kind: by.kind,
    ...(by.deviceName !== undefined ? { deviceName: by.deviceName } : {}),
    ...(by.strategy !== undefined ? { strategy: by.strategy } : {}),
    ...(by.trigger !== undefined ? { trigger: by.trigger } : {}),
  };
  return {
    type: 'resolved',
    inquiryId: inquiry.inquiryId,
    status: inquiry.status === 'pending' ? 'cancelled' : inquiry.status,
    ...(resolvedBy ? { resolvedBy } : {}),
  };
}
