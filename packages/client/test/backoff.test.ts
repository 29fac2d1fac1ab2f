import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF } from '../src/backoff.js';

describe('reconnect backoff', () => {
  it('doubles from the base up to the cap', () => {
    const noJitter = () => 0;
    const delays = [0, 1, 2, 3, 4, 5, 10, 100].map((n) => backoffDelay(n, DEFAULT_BACKOFF, noJitter));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });

  it('jitter only shortens a delay, by at most the jitter share', () => {
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 1)).toBe(2000);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.5)).toBe(3000);
  });
});
