import type { InquiryResponse, InquiryResult } from '@hitl/protocol';

/** How one question ended, as the assistant reads it. */
export type Reply =
  | { kind: 'answered'; answer: InquiryResponse; deviceName?: string }
  | { kind: 'refused' }
  | { kind: 'timed_out'; timer: 'device' | 'service' | 'client' }
  | {
      kind: 'decided';
      answer?: InquiryResponse;
      strategy?: string;
      rationale?: string;
      trigger?: string;
    }
  | { kind: 'cancelled' };

/**
 * Classifies a `send_inquiry` / `get_inquiry` result. Only a human's answer counts as the customer's;
 * anything a fallback decision agent produced is `decided`, so the transcript can label it; silence and
 * refusals carry no answer, whatever preset text came with them.
 */
export function classifyResult(result: InquiryResult): Reply {
  const by = result.resolvedBy;
  if (by?.kind === 'decision-agent') {
    return {
      kind: 'decided',
      ...(result.answer !== undefined ? { answer: result.answer } : {}),
      ...(by.strategy ? { strategy: by.strategy } : {}),
      ...(by.rationale ? { rationale: by.rationale } : {}),
      ...(by.trigger ? { trigger: by.trigger } : {}),
    };
  }
  switch (result.status) {
    case 'answered':
      if (by?.kind === 'human' && result.answer !== undefined) {
        return {
          kind: 'answered',
          answer: result.answer,
          ...(by.deviceName ? { deviceName: by.deviceName } : {}),
        };
      }
      return { kind: 'timed_out', timer: 'service' };
    case 'refused':
      return { kind: 'refused' };
    case 'timed_out':
      return { kind: 'timed_out', timer: by?.kind === 'device-timer' ? 'device' : 'service' };
    case 'cancelled':
      return { kind: 'cancelled' };
    case 'pending':
    case 'not_found':
      // The wait ended with no resolution the assistant can use: as good as nobody answering.
      return { kind: 'timed_out', timer: 'client' };
  }
}
