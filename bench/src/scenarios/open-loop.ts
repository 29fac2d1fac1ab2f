import { mergeHists, prefixed, summarize } from '../core/hist.js';
import type { Fields } from '../core/summary.js';
import { BENCH_SECRET, nodeStats } from '../env/nodes.js';
import { allNext, startWorker } from '../env/workers.js';
import type { OpenLoopParams, OpenLoopResult } from '../load/open-loop.js';
import { sleep } from '../load/util.js';
import { faultFields, param, type ScenarioContext, sumFaults } from './context.js';
import { nodesOnRedis } from './nodes-on-redis.js';

/** Issue 21: answer→resume p99 at 300 cycles/s offered on 2 nodes. */
const GOAL_P99_MS = 20;

/**
 * Full cycles at a fixed offered rate (`rate` per second over all load processes), 2 nodes, the
 * call on one node and the device on the other. Latencies count from the scheduled time, so a
 * saturated node shows as queueing instead of a lower rate (the closed-loop `throughput` shows
 * the rate). `--set rate=300` is the figure.
 */
export async function openLoop(ctx: ScenarioContext): Promise<Fields> {
  const rate = param(ctx, 'rate', { quick: 100, full: 300 });
  const { fields, resumeP99Ms, faults } = await runOpenLoop(ctx, rate, {
    durationMs: param(ctx, 'durationMs', { quick: 3000, full: 20_000 }),
  });
  return { ...fields, goal: resumeP99Ms <= GOAL_P99_MS && faults === 0 ? 'met' : 'missed' };
}

export interface OpenLoopRun {
  fields: Fields;
  resumeP99Ms: number;
  faults: number;
  completed: number;
  /** CPU time both nodes spent in the measured window (their own `process.cpuUsage`), ms. */
  nodeCpuMs: number;
}

/**
 * One open-loop run at `rate` cycles/s on 2 fresh nodes on a fresh Redis; the node CPU of the
 * measured window is each node's own `process.cpuUsage` (asked over IPC), not wall time.
 */
export async function runOpenLoop(
  ctx: ScenarioContext,
  rate: number,
  scale: { durationMs: number },
): Promise<OpenLoopRun> {
  const workers = param(ctx, 'workers', { quick: 2, full: 2 });
  const users = param(ctx, 'users', { quick: 16, full: 64 });
  const warmupMs = param(ctx, 'warmupMs', { quick: 1000, full: 3000 });
  const { durationMs } = scale;
  const { profiled, nodes } = await nodesOnRedis(ctx);
  const load = Array.from({ length: workers }, (_, w) => {
    const params: OpenLoopParams = {
      secret: BENCH_SECRET,
      nodeUrls: nodes.map((n) => n.url),
      worker: w,
      ratePerS: rate / workers,
      users,
      warmupMs,
      durationMs,
      tag: 'ol',
    };
    const worker = startWorker<OpenLoopResult>('open-loop', params);
    ctx.cleanup.add(() => worker.kill());
    return worker;
  });
  await allNext(load, 'ready');
  ctx.log(
    `${rate} cycles/s offered by ${workers} load processes; ${warmupMs} ms warm-up, ${durationMs} ms measured`,
  );
  for (const worker of load) worker.signal('go');
  await sleep(warmupMs);
  await profiled.start();
  const cpuBefore = await Promise.all(nodes.map((n) => nodeStats(n)));
  await sleep(durationMs);
  const cpuAfter = await Promise.all(nodes.map((n) => nodeStats(n)));
  const nodeCpuMs = cpuAfter.reduce((a, s, i) => a + s.cpuMs - (cpuBefore[i]?.cpuMs ?? 0), 0);
  const profileDir = await profiled.stop();
  if (profileDir) ctx.log(`CPU profiles of both nodes (measured window only) in ${profileDir}`);
  const results = await Promise.all(load.map((w) => w.result));
  const faults = faultFields(sumFaults(results.map((r) => r.faults)));
  for (const r of results) for (const s of r.samples) ctx.log(`fault: ${s}`);
  const scheduled = results.reduce((a, r) => a + r.scheduled, 0);
  const completed = results.reduce((a, r) => a + r.completed, 0);
  const resume = summarize(mergeHists(results.map((r) => r.resume)));
  const cycle = summarize(mergeHists(results.map((r) => r.cycle)));
  const fields: Fields = {
    offered_per_s: rate,
    scheduled,
    completed,
    late_sends: results.reduce((a, r) => a + r.lateSends, 0),
    ...prefixed('resume', resume),
    ...prefixed('cycle', cycle),
    node_cpu_util: nodeCpuMs / durationMs,
    node_cpu_ms_per_cycle: nodeCpuMs / Math.max(1, completed),
    ...faults,
    ok: faults.faults === 0 && completed === scheduled && completed > 0,
  };
  return { fields, resumeP99Ms: resume.p99_ms, faults: Number(faults.faults), completed, nodeCpuMs };
}
