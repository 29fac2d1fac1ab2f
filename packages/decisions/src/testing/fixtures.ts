import type { Inquiry } from '@hitl/protocol';

/** A pending inquiry as the store holds it, with `overrides` on top. */
export function inquiry(overrides: Partial<Inquiry> = {}): Inquiry {
  const now = Date.now();
  return {
    inquiryId: '01JTESTINQUIRY0000000000000',
    userId: 'alice',
    asker: { tokenSubject: 'alice', name: 'shop bot' },
    question: 'Which size?',
    format: 'text',
    kind: 'question',
    critical: false,
    createdAt: now,
    deadlines: { deviceAt: now + 1000, serviceAt: now + 2000, clientAt: now + 4000 },
    status: 'pending',
    ...overrides,
  };
}

export const approval = (overrides: Partial<Inquiry> = {}) =>
  inquiry({
    question: 'May I delete 3 invoices?',
    kind: 'approval',
    action: { server: 'billing', tool: 'delete_invoices', arguments: { ids: [1, 2, 3] } },
    ...overrides,
  });
