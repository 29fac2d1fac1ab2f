import { describe, expect, it } from 'vitest';
import { GetInquiryInputSchema } from '../src/index.js';
import { expectAccepted, expectNamesField, rejectionOf } from './zod-message.js';

describe('get_inquiry input', () => {
  it('rejects neither inquiryId nor idempotencyKey, saying which to give', () => {
    const message = rejectionOf(GetInquiryInputSchema, {});
    expectNamesField(message, 'inquiryId');
    expect(message).toContain('idempotencyKey');
  });

  it('rejects a wait alone, without anything to look up', () => {
    expectNamesField(rejectionOf(GetInquiryInputSchema, { waitMs: 5000 }), 'inquiryId');
  });

  it('accepts either an inquiryId or an idempotencyKey', () => {
    expect(expectAccepted(GetInquiryInputSchema, { inquiryId: 'inq_1' }).inquiryId).toBe('inq_1');
    expect(expectAccepted(GetInquiryInputSchema, { idempotencyKey: 'k1', waitMs: 0 }).idempotencyKey).toBe(
      'k1',
    );
  });

  it('rejects a negative waitMs', () => {
    expectNamesField(rejectionOf(GetInquiryInputSchema, { inquiryId: 'inq_1', waitMs: -1 }), 'waitMs');
  });
});
