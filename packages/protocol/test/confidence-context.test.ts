import { describe, expect, it } from 'vitest';
import { ConfidenceSchema, ContextSchema, LIMITS } from '../src/index.js';

describe('ConfidenceSchema', () => {
  it.each([0, 0.7, 1])('accepts %s', (value) => {
    expect(ConfidenceSchema.safeParse(value).success).toBe(true);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, true, '0.9', -0.1, 1.1])(
    'rejects %s',
    (value) => {
      expect(ConfidenceSchema.safeParse(value).success).toBe(false);
    },
  );
});

describe('ContextSchema', () => {
  it('accepts text and objects up to the byte limit', () => {
    expect(ContextSchema.safeParse('x'.repeat(LIMITS.contextBytes)).success).toBe(true);
    expect(ContextSchema.safeParse({ ticket: 'ABC-1', files: ['a.ts'] }).success).toBe(true);
  });

  it('says the context is too big', () => {
    const result = ContextSchema.safeParse('x'.repeat(LIMITS.contextBytes + 1));
    expect(result.error?.issues[0]?.message).toBe('context over 32768 bytes');
  });
});
