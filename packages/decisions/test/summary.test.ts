import type { DecisionRecord } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import { summarize } from '../src/index.js';

const since = 1_000_000;
let n = 0;
function rec(at: number, overrides: Partial<DecisionRecord>): DecisionRecord {
  n++;
  return {
    id: `${at}-${n}`,
    at,
    inquiryId: `i${n}`,
    userId: 'alice',
    kind: 'question',
    question: 'q',
    outcome: 'answered',
    trigger: 'human',
    decidedBy: 'human',
    latencyMs: 0,
    elapsedMs: 0,
    ...overrides,
  };
}

describe('summary for the ops console', () => {
  it('counts outcomes per bucket and strategies over the window', () => {
    const records = [
      rec(since + 10, { elapsedMs: 1000 }),
      rec(since + 20, {
        outcome: 'timed_out',
        trigger: 'device-timer',
        decidedBy: 'device-timer',
        strategy: 'preset_text',
      }),
      rec(since + 1500, {
        outcome: 'timed_out',
        trigger: 'service-timer',
        decidedBy: 'service-timer',
        strategy: 'preset_text',
      }),
      rec(since + 1600, {
        outcome: 'refused',
        trigger: 'refusal',
        decidedBy: 'human',
        strategy: 'preset_text',
      }),
      rec(since + 2100, {
        outcome: 'timed_out',
        trigger: 'service-timer',
        decidedBy: 'decision-agent',
        strategy: 'random',
      }),
      rec(since + 2200, {
        outcome: 'refused',
        trigger: 'refusal',
        decidedBy: 'decision-agent',
        strategy: 'fail_closed',
      }),
      rec(since + 2300, { outcome: 'cancelled', trigger: 'cancel', decidedBy: 'agent' }),
      rec(since - 1, { elapsedMs: 99_999 }),
    ];
    const summary = summarize(records, since, 1000, since + 2500);
    expect(summary.buckets).toEqual([
      {
        start: since,
        human: 1,
        deviceTimeout: 1,
        serviceTimeout: 0,
        refused: 0,
        decisionAgent: 0,
        cancelled: 0,
      },
      {
        start: since + 1000,
        human: 0,
        deviceTimeout: 0,
        serviceTimeout: 1,
        refused: 1,
        decisionAgent: 0,
        cancelled: 0,
      },
      {
        start: since + 2000,
        human: 0,
        deviceTimeout: 0,
        serviceTimeout: 0,
        refused: 0,
        decisionAgent: 2,
        cancelled: 1,
      },
    ]);
    expect(summary.byStrategy).toEqual({ preset_text: 3, random: 1, fail_closed: 1 });
    expect(summary.answerMs).toEqual({ p50: 1000, p90: 1000, p99: 1000, count: 1 });
  });

  it('gives human answer-time percentiles, null with no answers', () => {
    const records = Array.from({ length: 100 }, (_, i) => rec(since + i, { elapsedMs: (i + 1) * 100 }));
    const { answerMs } = summarize(records, since, 60_000, since + 1000);
    expect(answerMs.count).toBe(100);
    expect(answerMs.p50).toBeGreaterThanOrEqual(4990);
    expect(answerMs.p50).toBeLessThanOrEqual(5010);
    expect(answerMs.p90).toBeGreaterThanOrEqual(8990);
    expect(answerMs.p90).toBeLessThanOrEqual(9010);
    expect(answerMs.p99).toBeGreaterThanOrEqual(9890);
    expect(answerMs.p99).toBeLessThanOrEqual(9910);
    expect(summarize([], since, 1000, since + 10).answerMs).toEqual({
      p50: null,
      p90: null,
      p99: null,
      count: 0,
    });
  });
});
