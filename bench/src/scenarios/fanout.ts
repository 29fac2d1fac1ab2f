import { startRedisServer } from '@hitl/store/testing';
import { mergeHists, summarize } from '../core/hist.js';
import type { Fields } from '../core/summary.js';
import { BENCH_SECRET } from '../env/nodes.js';
import { startProfiledNodes } from '../env/probe-handle.js';
import { allNext, startWorker } from '../env/workers.js';
import type { FanoutParams, FanoutResult } from '../load/fanout.js';
import { faultFields, param, type ScenarioContext, sumFaults } from './context.js';

const GOAL_P99_MS = 15;
const WORKERS = 2;

/**
 * Fan-out: users × 3 devices spread over 2 nodes (each user has devices on both), two load
 * generator processes, inquiries at a steady rate. `p*_ms`: the node accepted the call (the
 * inquiry's createdAt) → every device of the user has `inquiry:new`; `send_*`: from the moment
 * the client sent send_inquiry (creation included). `--set cpuprof=1` profiles both nodes meanwhile.
 */
export async function fanout(ctx: ScenarioContext): Promise<Fields> {
  const users = param(ctx, 'users', { quick: 100, full: 3000 });
  const rounds = param(ctx, 'rounds', { quick: 2, full: 1 });
  const rate = param(ctx, 'rate', { quick: 100, full: 50 });
  const devicesPerUser = param(ctx, 'devices', { quick: 3, full: 3 });
  const redis = await startRedisServer();
  ctx.cleanup.add(() => redis.stop());
  const profiled = await startProfiledNodes(2, redis.url, ctx.overrides.cpuprof === 1, ctx.cleanup);
  const { nodes } = profiled;
  const share = Math.ceil(users / WORKERS);
  const workers = Array.from({ length: WORKERS }, (_, w) => {
    const params: FanoutParams = {
      secret: BENCH_SECRET,
      nodeUrls: nodes.map((n) => n.url),
      userOffset: w * share,
      users: Math.min(share, users - w * share),
      devicesPerUser,
      rounds,
      ratePerSec: rate / WORKERS,
      tag: 'fan',
    };
    const worker = startWorker<FanoutResult>('fanout', params);
    ctx.cleanup.add(() => worker.kill());
    return worker;
  });
  ctx.log(`connecting ${users * devicesPerUser} devices over 2 nodes`);
  const connectStart = Date.now();
  await allNext(workers, 'ready');
  ctx.log(
    `devices connected in ${((Date.now() - connectStart) / 1000).toFixed(1)} s; ${users * rounds} inquiries at ${rate}/s`,
  );
  await profiled.start();
  for (const worker of workers) worker.signal('go');
  const results = await Promise.all(workers.map((w) => w.result));
  const profileDir = await profiled.stop();
  if (profileDir) ctx.log(`CPU profiles of both nodes while inquiries were sent: ${profileDir}`);
  const latency = summarize(mergeHists(results.map((r) => r.accepted)));
  const fromSend = summarize(mergeHists(results.map((r) => r.all)));
  const firstDevice = summarize(mergeHists(results.map((r) => r.first)));
  const delivered = results.reduce((a, r) => a + r.delivered, 0);
  const expected = results.reduce((a, r) => a + r.expected, 0);
  const faults = faultFields(sumFaults(results.map((r) => r.faults)));
  for (const r of results) for (const s of r.samples) ctx.log(`fault: ${s}`);
  return {
    users,
    devices: users * devicesPerUser,
    inquiries: results.reduce((a, r) => a + r.inquiries, 0),
    rate_per_s: rate,
    ...latency,
    send_p50_ms: fromSend.p50_ms,
    send_p99_ms: fromSend.p99_ms,
    send_first_p50_ms: firstDevice.p50_ms,
    send_first_p99_ms: firstDevice.p99_ms,
    delivered,
    expected,
    delivered_pct: (100 * delivered) / expected,
    ...faults,
    ok: faults.faults === 0 && delivered === expected,
    goal: latency.p99_ms <= GOAL_P99_MS && delivered === expected ? 'met' : 'missed',
  };
}
