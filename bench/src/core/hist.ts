import * as hdr from 'hdr-histogram-js';

/** An HDR histogram of latencies, recorded in microseconds (3 significant digits, up to 10 minutes). */
export type Hist = hdr.Histogram;

/** Latency percentiles in milliseconds, as the summary line prints them. */
export interface LatencySummary {
  count: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
}

export function newHist(): Hist {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 600_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

/** Records one latency given in (fractional) milliseconds. */
export function recordMs(hist: Hist, ms: number): void {
  hist.recordValue(Math.min(600_000_000, Math.max(1, Math.round(ms * 1000))));
}

/** Compact form to send a histogram from a load generator process to the runner. */
export function encodeHist(hist: Hist): string {
  return hdr.encodeIntoCompressedBase64(hist);
}

/** Decodes and adds up histograms from several processes. */
export function mergeHists(encoded: string[]): Hist {
  const total = newHist();
  for (const one of encoded) total.add(hdr.decodeFromCompressedBase64(one));
  return total;
}

const ms = (us: number) => Math.round(us) / 1000;

export function summarize(hist: Hist): LatencySummary {
  return {
    count: hist.totalCount,
    p50_ms: ms(hist.getValueAtPercentile(50)),
    p90_ms: ms(hist.getValueAtPercentile(90)),
    p99_ms: ms(hist.getValueAtPercentile(99)),
    p999_ms: ms(hist.getValueAtPercentile(99.9)),
    max_ms: ms(hist.maxValue),
  };
}

/** The summary of a histogram with every key prefixed (`redis_p50_ms`, ...). */
export function prefixed(prefix: string, summary: LatencySummary): Record<string, number> {
  return Object.fromEntries(Object.entries(summary).map(([k, v]) => [`${prefix}_${k}`, v]));
}
