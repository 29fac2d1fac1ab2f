import type { DeviceInquiry } from '@hitl/protocol';

/** A device copy of an inquiry created at `serverNow` with a 30 s device tier. */
export function deviceInquiry(
  id: string,
  serverNow: number,
  patch: Partial<DeviceInquiry> = {},
): DeviceInquiry {
  return {
    inquiryId: id,
    question: `question ${id}`,
    format: 'text',
    kind: 'question',
    critical: false,
    asker: { tokenSubject: 'agent-1', name: 'test agent' },
    createdAt: serverNow,
    deadlines: { deviceAt: serverNow + 30_000, serviceAt: serverNow + 50_000, clientAt: serverNow + 90_000 },
    serverTime: serverNow,
    ...patch,
  };
}
