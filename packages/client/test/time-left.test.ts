import { describe, expect, it } from 'vitest';
import { formatAnswerBy, formatFullDate, formatTimeLeft, spokenTimeLeft } from '../src/index.js';

describe('formatTimeLeft', () => {
  it('reads m:ss under an hour, rounded up to the second; never negative', () => {
    expect(formatTimeLeft(65_000)).toBe('1:05');
    expect(formatTimeLeft(42_000)).toBe('0:42');
    expect(formatTimeLeft(1)).toBe('0:01');
    expect(formatTimeLeft(-5)).toBe('0:00');
    expect(formatTimeLeft(3_600_000 - 1000)).toBe('59:59');
  });
  it('reads hours and minutes from an hour to two days, rounded up to the minute', () => {
    expect(formatTimeLeft(3_600_000)).toBe('1 h 0 min');
    expect(formatTimeLeft(3_600_000 + 61_000)).toBe('1 h 2 min');
    // A 24-hour window a few seconds in: one shape, not "1d 0h" then "23:59:40".
    expect(formatTimeLeft(86_400_000)).toBe('24 h 0 min');
    expect(formatTimeLeft(86_400_000 - 20_000)).toBe('24 h 0 min');
    expect(formatTimeLeft(86_400_000 - 60_000)).toBe('23 h 59 min');
    expect(formatTimeLeft(48 * 3_600_000 - 60_000)).toBe('47 h 59 min');
  });
  it('reads days and hours from two days on, rounded up to the hour', () => {
    expect(formatTimeLeft(48 * 3_600_000)).toBe('2 d 0 h');
    expect(formatTimeLeft(3 * 86_400_000 - 5000)).toBe('3 d 0 h');
    expect(formatTimeLeft(3 * 86_400_000 - 3_600_000)).toBe('2 d 23 h');
    expect(formatTimeLeft(7 * 86_400_000)).toBe('7 d 0 h');
  });
});

describe('spokenTimeLeft', () => {
  it('the units and rounding of the visible text in words; a zero unit is left out', () => {
    expect(spokenTimeLeft(3 * 86_400_000 - 3_600_000)).toBe('2 days 23 hours');
    expect(spokenTimeLeft(3 * 86_400_000 - 5000)).toBe('3 days');
    expect(spokenTimeLeft(86_400_000 - 60_000)).toBe('23 hours 59 minutes');
    expect(spokenTimeLeft(3_600_000 + 61_000)).toBe('1 hour 2 minutes');
    expect(spokenTimeLeft(65_000)).toBe('1 minute 5 seconds');
    expect(spokenTimeLeft(120_000)).toBe('2 minutes');
    expect(spokenTimeLeft(1)).toBe('1 second');
    expect(spokenTimeLeft(-5)).toBe('0 seconds');
  });
});

describe('formatAnswerBy', () => {
  // Tuesday 1 December 2026, 09:00 UTC.
  const now = Date.UTC(2026, 11, 1, 9, 0);
  const gb = { locale: 'en-GB', timeZone: 'UTC' };
  it('weekday and time within six days; the date as well beyond; the year when it changes', () => {
    expect(formatAnswerBy(Date.UTC(2026, 11, 3, 14, 5), now, gb)).toBe('Thu 14:05');
    expect(formatAnswerBy(Date.UTC(2026, 11, 8, 14, 5), now, gb)).toBe('Tue 8 Dec, 14:05');
    expect(formatAnswerBy(Date.UTC(2027, 0, 2, 8, 0), Date.UTC(2026, 11, 30, 9, 0), gb)).toBe(
      'Sat, 2 Jan 2027, 8:00',
    );
  });
  it('in the device locale and time zone', () => {
    const at = Date.UTC(2026, 11, 3, 14, 5);
    expect(formatAnswerBy(at, now, { locale: 'en-US', timeZone: 'UTC' })).toBe('Thu 2:05 PM');
    expect(formatAnswerBy(at, now, { locale: 'en-GB', timeZone: 'Asia/Tokyo' })).toBe('Thu 23:05');
    expect(formatFullDate(at, gb)).toBe('Thursday, 3 December 2026 at 14:05');
  });
});
