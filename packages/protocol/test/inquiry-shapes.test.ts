import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  DEVICE_HIDDEN,
  type DeviceInquiry,
  DeviceInquirySchema,
  type Inquiry,
  InquirySchema,
  toDeviceInquiry,
} from '../src/index.js';

const AT = 1_700_000_000_000;

/** An inquiry with every field of the schema set (the first check keeps it so). */
const full: Inquiry = {
  question: 'Ship the release?',
  questions: [{ id: 'why', prompt: 'Why?', kind: 'text' }],
  format: 'form',
  defaultAnswer: { why: 'tests pass' },
  options: ['yes', 'no'],
  context: 'release 1.2',
  kind: 'approval',
  action: {
    server: 'deploy',
    tool: 'ship',
    arguments: { env: 'prod' },
    inputSchema: { type: 'object', properties: { env: { type: 'string' } } },
  },
  critical: true,
  confidence: 0.3,
  fallback: { onTimeout: 'fail_closed' },
  quorum: 2,
  requirePasskey: true,
  askInChat: false,
  editable: ['env'],
  standing: false,
  inquiryId: 'inq_1',
  userId: 'ann',
  audience: ['ann', 'bob'],
  team: 'ops',
  escalation: { at: AT + 10_000, users: ['cat'], team: 'leads', escalatedAt: AT + 10_001 },
  votes: [{ userId: 'bob', vote: 'approve', at: AT + 5_000 }],
  asker: { name: 'Claude', tokenSubject: 'ann' },
  idempotencyKey: 'ship-12',
  createdAt: AT,
  deadlines: { deviceAt: AT + 30_000, serviceAt: AT + 50_000, clientAt: AT + 90_000, answerBy: AT + 60_000 },
  suggestedAnswer: { why: 'green' },
  status: 'answered',
  answer: { why: 'ok' },
  resolvedBy: { kind: 'human', userId: 'bob' },
  resolvedAt: AT + 20_000,
  reason: 'staging first',
  arguments: { env: 'staging' },
  changed: ['env'],
};

const sorted = (keys: Iterable<string>) => [...keys].sort();
const shownKeys = sorted([
  ...Object.keys(InquirySchema.shape).filter((key) => !(key in DEVICE_HIDDEN)),
  'serverTime',
]);

describe('the inquiry declared once', () => {
  it('has a test inquiry with every field of the schema', () => {
    expect(sorted(Object.keys(full))).toEqual(sorted(Object.keys(InquirySchema.shape)));
    expect(InquirySchema.safeParse(full).success).toBe(true);
  });

  it('derives the device schema: every field of the inquiry but the documented hidden ones', () => {
    expect(sorted(Object.keys(DeviceInquirySchema.shape))).toEqual(shownKeys);
    expectTypeOf<keyof DeviceInquiry>().toEqualTypeOf<
      Exclude<keyof Inquiry, keyof typeof DEVICE_HIDDEN> | 'serverTime'
    >();
  });

  it('shows a device every field of the inquiry but the hidden ones, and passes its schema', () => {
    const view = toDeviceInquiry(full, AT + 1_000);
    expect(sorted(Object.keys(view))).toEqual(shownKeys);
    expect(DeviceInquirySchema.parse(view)).toEqual(view);
  });

  it('carries a field added to the stored inquiry to the device without an edit to the view', () => {
    const extended = { ...full, mood: 'calm' } as Inquiry & { mood: string };
    expect(toDeviceInquiry(extended, AT)).toMatchObject({ mood: 'calm' });
    const Extended = InquirySchema.extend({ mood: z.string() });
    expect(Object.keys(Extended.omit(DEVICE_HIDDEN).shape)).toContain('mood');
  });
});
