import { type PendingInquiry, received } from '@hitl/client';
import type { DeviceInquiry } from '@hitl/protocol';

export const NOW = 1_800_000_000_000;
let seq = 0;

/** A pending inquiry as a device holds it, created at `NOW` with its device deadline 30 s later. */
export function inquiry(overrides: Partial<DeviceInquiry> = {}): PendingInquiry {
  seq += 1;
  const base: DeviceInquiry = {
    inquiryId: `01INQUIRY${String(seq).padStart(4, '0')}`,
    question: 'Which size?',
    format: 'text',
    kind: 'question',
    critical: false,
    asker: { name: 'shop assistant', tokenSubject: 'alice' },
    createdAt: NOW,
    deadlines: { deviceAt: NOW + 30_000, serviceAt: NOW + 50_000, clientAt: NOW + 90_000 },
    serverTime: NOW,
  };
  return received({ ...base, ...overrides }, NOW);
}

export const FORM = [
  { id: 'size', prompt: 'Size', kind: 'choice' as const, options: ['S', 'M', 'L'], required: true },
  { id: 'colour', prompt: 'Colours', kind: 'multi' as const, options: ['red', 'blue', 'green'] },
  { id: 'budget', prompt: 'Budget in EUR', kind: 'number' as const, required: true },
  { id: 'gift', prompt: 'Gift wrap?', kind: 'boolean' as const },
  { id: 'note', prompt: 'Anything else?', kind: 'text' as const },
];
