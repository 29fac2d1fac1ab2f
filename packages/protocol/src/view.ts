import type { DeviceInquiry } from './events.js';
import type { Inquiry } from './inquiry.js';
import type { InquiryResult } from './tools.js';

/** The device's view of an inquiry: everything but the answer, stamped with the server clock. */
export function toDeviceInquiry(inquiry: Inquiry, serverTime: number): DeviceInquiry {
  return {
    inquiryId: inquiry.inquiryId,
    question: inquiry.question,
    questions: inquiry.questions,
    format: inquiry.format,
    options: inquiry.options,
    context: inquiry.context,
    kind: inquiry.kind,
    action: inquiry.action,
    critical: inquiry.critical,
    ...(inquiry.confidence === undefined ? {} : { confidence: inquiry.confidence }),
    defaultAnswer: inquiry.defaultAnswer,
    suggestedAnswer: inquiry.suggestedAnswer,
    ...(inquiry.quorum === undefined ? {} : { quorum: inquiry.quorum, votes: inquiry.votes ?? [] }),
    ...(inquiry.audience === undefined ? {} : { audience: inquiry.audience }),
    ...(inquiry.team === undefined ? {} : { team: inquiry.team }),
    ...(inquiry.escalation?.escalatedAt === undefined ? {} : { escalation: inquiry.escalation }),
    asker: inquiry.asker,
    createdAt: inquiry.createdAt,
    deadlines: inquiry.deadlines,
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
  return result;
}
