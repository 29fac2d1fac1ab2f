import { startRedisServer } from '@hitl/store/testing';
import { mergeHists, summarize } from '../core/hist.js';
import type { Fields } from '../core/summary.js';
import { startWorker } from '../env/workers.js';
import type { RacesParams, RacesResult } from '../load/races.js';
import { faultFields, param, type ScenarioContext, sumFaults } from './context.js';

const WORKERS = 2;

/**
 * Races at the store layer (`RedisInquiryStore` on a real Redis, no HTTP): every inquiry gets 3
 * answers, a service timeout and a cancel at once, from three store instances acting as nodes.
 */
export async function races(ctx: ScenarioContext): Promise<Fields> {
  const count = param(ctx, 'inquiries', { quick: 2000, full: 100_000 });
  const concurrency = param(ctx, 'concurrency', { quick: 100, full: 200 });
  const redis = await startRedisServer();
  ctx.cleanup.add(() => redis.stop());
  ctx.log(`${count} inquiries × 5 racers (3 answers, timeout, cancel), ${WORKERS} processes`);
  const share = Math.ceil(count / WORKERS);
  const workers = Array.from({ length: WORKERS }, (_, w) => {
    const params: RacesParams = {
      redisUrl: redis.url,
      prefix: `bench:races:w${w}:`,
      count: Math.min(share, count - w * share),
      concurrency,
      autoPipelining: ctx.overrides.autoPipelining === 1,
    };
    const worker = startWorker<RacesResult>('races', params);
    ctx.cleanup.add(() => worker.kill());
    return worker;
  });
  const results = await Promise.all(workers.map((w) => w.result));
  const inquiries = results.reduce((a, r) => a + r.inquiries, 0);
  const released = results.reduce((a, r) => a + r.waitersReleased, 0);
  const wins = sumFaults(results.map((r) => r.wins));
  const faults = faultFields(sumFaults(results.map((r) => r.faults)));
  for (const r of results) for (const s of r.samples) ctx.log(`fault: ${s}`);
  const latency = summarize(mergeHists(results.map((r) => r.hist)));
  const seconds = Math.max(...results.map((r) => r.elapsedMs)) / 1000;
  const correct = faults.faults === 0 && inquiries === count && released === 2 * count;
  return {
    auto_pipelining: ctx.overrides.autoPipelining === 1,
    inquiries,
    racers: inquiries * 5,
    per_s: inquiries / seconds,
    wins_answer: wins.answer ?? 0,
    wins_timeout: wins.timeout ?? 0,
    wins_cancel: wins.cancel ?? 0,
    waiters_released: released,
    ...latency,
    ...faults,
    ok: correct,
    goal: correct ? 'met' : 'missed',
  };
}
