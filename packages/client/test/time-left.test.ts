import { describe, expect, it } from 'vitest';
import { formatTimeLeft } from '../src/index.js';

describe('formatTimeLeft', () => {
  it('reads m:ss, then h:mm:ss, then days and hours; rounds up; never negative', () => {
    expect(formatTimeLeft(65_000)).toBe('1:05');
    expect(formatTimeLeft(1)).toBe('0:01');
    expect(formatTimeLeft(-5)).toBe('0:00');
    expect(formatTimeLeft(3_600_000 + 61_000)).toBe('1:01:01');
    expect(formatTimeLeft(86_400_000 - 1000)).toBe('23:59:59');
    expect(formatTimeLeft(7 * 86_400_000)).toBe('7d 0h');
    expect(formatTimeLeft(2 * 86_400_000 + 5 * 3_600_000 + 1)).toBe('2d 5h');
  });
});
