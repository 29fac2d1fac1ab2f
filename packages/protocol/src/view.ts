import { DEVICE_HIDDEN, type DeviceInquiry } from './events.js';
import type { Inquiry } from './inquiry.js';
import type { InquiryResult } from './tools.js';

/** `source` without the keys `hidden` names, and without its undefined values. */
function withoutKeys<T extends object, H extends Partial<Record<keyof T, true>>>(
  source: T,
  hidden: H,
): Omit<T, keyof H> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && !(key in hidden)) kept[key] = value;
  }
  return kept as Omit<T, keyof H>;
}

/**
 * The device's view of an inquiry: everything but {@link DEVICE_HIDDEN}, stamped with the server clock.
 * A quorum approval always carries its votes (`[]` before the first); a planned escalation shows only
 * once it happened.
 */
export function toDeviceInquiry(inquiry: Inquiry, serverTime: number): DeviceInquiry {
  const { votes, escalation, ...shown } = withoutKeys(inquiry, DEVICE_HIDDEN);
  return {
    ...shown,
    ...(inquiry.quorum === undefined ? {} : { votes: votes ?? [] }),
    ...(escalation?.escalatedAt === undefined ? {} : { escalation }),
    serverTime,
  };
}

/** The tool result's structured part for an inquiry (or `not_found` for none). */
export function toInquiryResult(inquiry: Inquiry | null, now: number): InquiryResult {
  if (!inquiry) return { inquiryId: null, status: 'not_found', elapsedMs: 0 };
  const end = inquiry.resolvedAt ?? now;
  const result: InquiryResult = {
    inquiryId: inquiry.inquiryId,
    status: inquiry.status,
    elapsedMs: Math.max(0, end - inquiry.createdAt),
  };
  if (inquiry.answer !== undefined) result.answer = inquiry.answer;
  if (inquiry.resolvedBy) result.resolvedBy = inquiry.resolvedBy;
  if (inquiry.quorum !== undefined) result.votes = inquiry.votes ?? [];
  if (inquiry.reason !== undefined) result.reason = inquiry.reason;
  if (inquiry.status === 'answered' && inquiry.answer === 'approve' && inquiry.action) {
    result.arguments = inquiry.arguments ?? inquiry.action.arguments;
    result.changed = inquiry.changed ?? [];
  }
  return result;
}
