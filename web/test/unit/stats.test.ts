import type { Inquiry } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import {
  answerPercentiles,
  formatAxisDuration,
  formatDuration,
  outcomeBuckets,
  outcomeOf,
  percentile,
  pickBucketMs,
} from '../../src/ops/stats';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1, 12, 0);
type Ended = Pick<Inquiry, 'status' | 'resolvedBy' | 'createdAt' | 'resolvedAt'>;
const ended = (status: Inquiry['status'], kind: string | undefined, at: number, tookMs = 1000): Ended => ({
  status,
  createdAt: at - tookMs,
  ...(status === 'pending' ? {} : { resolvedAt: at }),
  ...(kind ? { resolvedBy: { kind: kind as 'human' } } : {}),
});

describe('ops statistics', () => {
  it('groups outcomes the way the charts label them', () => {
    expect(outcomeOf(ended('answered', 'human', T0))).toBe('human');
    expect(outcomeOf(ended('timed_out', 'device-timer', T0))).toBe('deviceTimeout');
    expect(outcomeOf(ended('timed_out', 'service-timer', T0))).toBe('serviceTimeout');
    expect(outcomeOf(ended('refused', 'human', T0))).toBe('refused');
    expect(outcomeOf(ended('answered', 'decision-agent', T0))).toBe('decisionAgent');
    expect(outcomeOf(ended('cancelled', 'agent', T0))).toBe('cancelled');
    expect(outcomeOf(ended('pending', undefined, T0))).toBeNull();
  });

  it('nearest-rank percentiles of human answer times only', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([10, 20, 30, 40], 50)).toBe(20);
    expect(percentile([10, 20, 30, 40], 90)).toBe(40);
    const list = [
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((s) => ended('answered', 'human', T0, s * 1000)),
      ended('timed_out', 'device-timer', T0, 99_000),
      ended('answered', 'decision-agent', T0, 99_000),
    ];
    expect(answerPercentiles(list)).toEqual({ p50: 5000, p90: 9000, p99: 10_000, count: 10 });
  });

  it('buckets by end time, contiguous, with empty buckets kept', () => {
    const { bucketMs, buckets } = outcomeBuckets(
      [
        ended('answered', 'human', T0 + 10_000, 2000),
        ended('refused', 'human', T0 + 20_000),
        ended('timed_out', 'service-timer', T0 + 3 * MIN),
        ended('pending', undefined, T0 + 4 * MIN),
      ],
      MIN,
    );
    expect(bucketMs).toBe(MIN);
    expect(buckets.map((b) => [b.start - T0, b.human, b.refused, b.serviceTimeout])).toEqual([
      [0, 1, 1, 0],
      [MIN, 0, 0, 0],
      [2 * MIN, 0, 0, 0],
      [3 * MIN, 0, 0, 1],
    ]);
    expect(buckets[0]?.p50).toBe(2000);
    expect(outcomeBuckets([]).buckets).toEqual([]);
  });

  it('picks a bucket size that keeps the chart readable', () => {
    expect(pickBucketMs(10 * MIN)).toBe(MIN);
    expect(pickBucketMs(3 * 60 * MIN)).toBe(15 * MIN);
    expect(pickBucketMs(10 * 24 * 60 * MIN)).toBe(24 * 60 * MIN);
  });

  it('formats durations for people', () => {
    expect([
      formatDuration(null),
      formatDuration(850),
      formatDuration(12_340),
      formatDuration(119_700),
    ]).toEqual(['–', '850 ms', '12.3 s', '1 min 59 s']);
  });

  it('formats axis ticks in one short unit', () => {
    expect([0, 850, 12_340, 42_000, 150_000, 300_000, 5_400_000].map(formatAxisDuration)).toEqual([
      '0 ms',
      '850 ms',
      '12.3 s',
      '42 s',
      '2.5 min',
      '5 min',
      '1.5 h',
    ]);
  });
});
