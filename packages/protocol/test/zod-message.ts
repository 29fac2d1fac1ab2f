import { expect } from 'vitest';
import type { z } from 'zod';
import { describeZodError } from '../src/index.js';

/** Parses `input`, expects a rejection, and returns the one-line message a caller would read. */
export function rejectionOf(schema: z.ZodType, input: unknown): string {
  const result = schema.safeParse(input);
  expect(result.success, `expected ${JSON.stringify(input)?.slice(0, 200)} to be rejected`).toBe(false);
  return result.success ? '' : describeZodError(result.error);
}

/** Asserts the message has a `field: ...` segment, the way `describeZodError` names a bad field. */
export function expectNamesField(message: string, field: string): void {
  const segments = message.split('; ').map((segment) => segment.split(': ')[0]);
  expect(segments, message).toContain(field);
}

/** Parses `input` and fails with the caller-facing message when it is rejected. */
export function expectAccepted<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) expect.fail(`expected acceptance, got: ${describeZodError(result.error)}`);
  return result.data;
}
