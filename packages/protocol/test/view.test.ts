import { describe, expect, it } from 'vitest';
import {
  DeviceInquirySchema,
  type Inquiry,
  InquiryResultSchema,
  toDeviceInquiry,
  toInquiryResult,
} from '../src/index.js';

const CREATED_AT = 1_700_000_000_000;

function inquiry(overrides: Partial<Inquiry> = {}): Inquiry {
  return {
    inquiryId: 'inq_1',
    userId: 'ann',
    asker: { name: 'Claude', tokenSubject: 'ann' },
    question: 'Deploy to prod?',
    format: 'text',
    kind: 'question',
    critical: false,
    options: ['yes', 'no'],
    idempotencyKey: 'deploy-42',
    confidence: 0.4,
    createdAt: CREATED_AT,
    deadlines: {
      deviceAt: CREATED_AT + 30_000,
      serviceAt: CREATED_AT + 50_000,
      clientAt: CREATED_AT + 90_000,
    },
    status: 'pending',
    ...overrides,
  };
}

describe('toInquiryResult', () => {
  it('reports not_found for no inquiry', () => {
    const result = toInquiryResult(null, CREATED_AT);
    expect(result).toEqual({ inquiryId: null, status: 'not_found', elapsedMs: 0 });
    expect(InquiryResultSchema.safeParse(result).success).toBe(true);
  });

  it('measures a pending inquiry up to now, with no answer', () => {
    const result = toInquiryResult(inquiry(), CREATED_AT + 7_000);
    expect(result).toEqual({ inquiryId: 'inq_1', status: 'pending', elapsedMs: 7_000 });
    expect('answer' in result).toBe(false);
  });

  it("measures a resolved inquiry up to resolvedAt, not now, and carries the human's answer", () => {
    const resolvedBy = { kind: 'human', deviceId: 'dev_1', deviceName: 'Phone' } as const;
    const resolved = inquiry({
      status: 'answered',
      answer: 'yes',
      resolvedBy,
      resolvedAt: CREATED_AT + 4_000,
    });
    const result = toInquiryResult(resolved, CREATED_AT + 600_000);
    expect(result).toEqual({
      inquiryId: 'inq_1',
      status: 'answered',
      answer: 'yes',
      resolvedBy,
      elapsedMs: 4_000,
    });
    expect(InquiryResultSchema.safeParse(result).success).toBe(true);
  });

  it('never reports a negative elapsed time when clocks disagree', () => {
    expect(toInquiryResult(inquiry(), CREATED_AT - 500).elapsedMs).toBe(0);
  });
});

describe('toDeviceInquiry', () => {
  it('stamps the server clock and passes the device schema', () => {
    const view = toDeviceInquiry(inquiry(), CREATED_AT + 1_000);
    expect(view.serverTime).toBe(CREATED_AT + 1_000);
    expect(view.deadlines.deviceAt).toBe(CREATED_AT + 30_000);
    expect(DeviceInquirySchema.safeParse(view).success).toBe(true);
  });

  it('does not show the device the answer, the resolution, or the caller-only fields', () => {
    const resolved = inquiry({
      status: 'answered',
      answer: 'yes',
      resolvedBy: { kind: 'human' },
      resolvedAt: CREATED_AT + 4_000,
    });
    const view = toDeviceInquiry(resolved, CREATED_AT + 5_000);
    for (const hidden of ['answer', 'resolvedBy', 'resolvedAt', 'status', 'userId', 'idempotencyKey']) {
      expect(view, hidden).not.toHaveProperty(hidden);
    }
  });

  it('shows the asker’s confidence when it gave one (an approval card names a low one as its reason)', () => {
    expect(toDeviceInquiry(inquiry({ confidence: 0.4 }), CREATED_AT).confidence).toBe(0.4);
    expect(toDeviceInquiry(inquiry({ confidence: undefined }), CREATED_AT)).not.toHaveProperty('confidence');
  });
});
