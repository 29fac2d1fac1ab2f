import type { Inquiry } from '@hitl/protocol';

/** Who or what ended an inquiry, as the ops charts group them. */
export const OUTCOMES = [
  'human',
  'deviceTimeout',
  'serviceTimeout',
  'refused',
  'decisionAgent',
  'cancelled',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const OUTCOME_LABELS: Record<Outcome, string> = {
  human: 'Answered by a human',
  deviceTimeout: 'Device timeout',
  serviceTimeout: 'Service timeout',
  refused: 'Refused',
  decisionAgent: 'Decided by agent',
  cancelled: 'Cancelled',
};

type Ended = Pick<Inquiry, 'status' | 'resolvedBy' | 'createdAt' | 'resolvedAt'>;

/** The chart group of an ended inquiry; null while pending. */
export function outcomeOf(inquiry: Pick<Inquiry, 'status' | 'resolvedBy'>): Outcome | null {
  const kind = inquiry.resolvedBy?.kind;
  if (inquiry.status === 'pending') return null;
  if (kind === 'decision-agent') return 'decisionAgent';
  if (inquiry.status === 'cancelled') return 'cancelled';
  if (inquiry.status === 'refused') return 'refused';
  if (inquiry.status === 'timed_out') return kind === 'device-timer' ? 'deviceTimeout' : 'serviceTimeout';
  return 'human';
}

/** How long a human took to answer, or null when no human answered. */
export function humanAnswerMs(inquiry: Ended): number | null {
  if (
    inquiry.status !== 'answered' ||
    inquiry.resolvedBy?.kind !== 'human' ||
    inquiry.resolvedAt === undefined
  ) {
    return null;
  }
  return Math.max(0, inquiry.resolvedAt - inquiry.createdAt);
}

/** Nearest-rank percentile of ascending `sorted` (null when empty). */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? null;
}

export interface Percentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  count: number;
}

export function answerPercentiles(inquiries: readonly Ended[]): Percentiles {
  const times = inquiries.flatMap((i) => {
    const ms = humanAnswerMs(i);
    return ms === null ? [] : [ms];
  });
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p90: percentile(times, 90),
    p99: percentile(times, 99),
    count: times.length,
  };
}

const MINUTE = 60_000;
const BUCKET_SIZES = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  60 * MINUTE,
  3 * 60 * MINUTE,
  6 * 60 * MINUTE,
  24 * 60 * MINUTE,
];

/** The smallest bucket size that shows `spanMs` in at most `maxBuckets` bars. */
export function pickBucketMs(spanMs: number, maxBuckets = 24): number {
  return BUCKET_SIZES.find((size) => spanMs / size <= maxBuckets) ?? 7 * 24 * 60 * MINUTE;
}

export type OutcomeBucket = { start: number } & Record<Outcome, number> & Percentiles;

/**
 * Ended inquiries per time bucket (by when they ended), counted by outcome, with the human answer-time
 * percentiles of each bucket. Buckets are contiguous, empty ones included, so gaps show as gaps.
 */
export function outcomeBuckets(
  inquiries: readonly Ended[],
  bucketMs?: number,
): { bucketMs: number; buckets: OutcomeBucket[] } {
  const ended = inquiries.filter((i) => i.status !== 'pending');
  const at = (i: Ended) => i.resolvedAt ?? i.createdAt;
  if (ended.length === 0) return { bucketMs: bucketMs ?? MINUTE, buckets: [] };
  const first = Math.min(...ended.map(at));
  const last = Math.max(...ended.map(at));
  const size = bucketMs ?? pickBucketMs(last - first);
  const start = Math.floor(first / size) * size;
  const count = Math.floor((last - start) / size) + 1;
  const groups: Ended[][] = Array.from({ length: count }, () => []);
  for (const inquiry of ended) groups[Math.floor((at(inquiry) - start) / size)]?.push(inquiry);
  const buckets = groups.map((group, index) => {
    const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
    for (const inquiry of group) {
      const outcome = outcomeOf(inquiry);
      if (outcome) counts[outcome] += 1;
    }
    return { start: start + index * size, ...counts, ...answerPercentiles(group) };
  });
  return { bucketMs: size, buckets };
}

/** "850 ms", "12.3 s", "4 min 05 s". */
export function formatDuration(ms: number | null): string {
  if (ms === null) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')} s`;
}

/** Trailing zeros dropped: 2.5 → "2.5", 5.0 → "5". */
const short = (n: number) => String(Number(n.toFixed(1)));

/**
 * A chart axis label: one short unit, so a tick never wraps in the axis's width ("850 ms", "42 s",
 * "2.5 min", "1.5 h"); the tooltip says it exactly with {@link formatDuration}.
 */
export function formatAxisDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${short(ms / 1000)} s`;
  if (ms < 3_600_000) return `${short(ms / 60_000)} min`;
  return `${short(ms / 3_600_000)} h`;
}
