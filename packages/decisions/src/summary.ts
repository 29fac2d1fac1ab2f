import type { DecisionRecord, DecisionSummary } from '@hitl/protocol';
import { build } from 'hdr-histogram-js';

type Bucket = DecisionSummary['buckets'][number];
type Counter = Exclude<keyof Bucket, 'start'>;

/** Which bucket counter a record adds to: who or what ended the inquiry. */
export function counterFor(record: DecisionRecord): Counter {
  if (record.decidedBy === 'decision-agent') return 'decisionAgent';
  if (record.outcome === 'cancelled') return 'cancelled';
  if (record.outcome === 'refused') return 'refused';
  if (record.decidedBy === 'device-timer') return 'deviceTimeout';
  if (record.decidedBy === 'service-timer') return 'serviceTimeout';
  return 'human';
}

/** Most buckets one summary may hold. */
export const MAX_BUCKETS = 1000;

/**
 * What the ops console charts over `[since, now)`: counts per time bucket by outcome, counts per
 * strategy, and percentiles of the time people took to answer (HdrHistogram, 3 significant digits).
 */
export function summarize(
  records: DecisionRecord[],
  since: number,
  bucketMs: number,
  now: number,
): DecisionSummary {
  const count = Math.min(MAX_BUCKETS, Math.max(1, Math.ceil((now - since) / bucketMs)));
  const buckets: Bucket[] = Array.from({ length: count }, (_, i) => ({
    start: since + i * bucketMs,
    human: 0,
    deviceTimeout: 0,
    serviceTimeout: 0,
    refused: 0,
    decisionAgent: 0,
    cancelled: 0,
  }));
  const byStrategy: DecisionSummary['byStrategy'] = {};
  const histogram = build({ numberOfSignificantValueDigits: 3 });
  for (const record of records) {
    const index = Math.floor((record.at - since) / bucketMs);
    const bucket = buckets[index];
    if (!bucket) continue;
    bucket[counterFor(record)]++;
    if (record.strategy) byStrategy[record.strategy] = (byStrategy[record.strategy] ?? 0) + 1;
    if (record.decidedBy === 'human' && record.outcome === 'answered') {
      histogram.recordValue(Math.max(0, Math.round(record.elapsedMs)));
    }
  }
  const total = histogram.totalCount;
  const at = (p: number) => (total > 0 ? histogram.getValueAtPercentile(p) : null);
  const answerMs = { p50: at(50), p90: at(90), p99: at(99), count: total };
  histogram.destroy();
  return { since, bucketMs, buckets, byStrategy, answerMs };
}
