import { readdirSync } from 'node:fs';
import { startRedisServer } from '@hitl/store/testing';
import type { Fields } from '../core/summary.js';
import { openFileLimit } from '../env/limits.js';
import { BENCH_SECRET, startNode } from '../env/nodes.js';
import { inspectFlag, startProbe } from '../env/probe-handle.js';
import { allNext, startWorker, type WorkerHandle } from '../env/workers.js';
import type { CapacityParams, CapacityResult } from '../load/capacity.js';
import { sleep } from '../load/util.js';
import { measure, parkAndRelease, redisUsedBytes, type Snapshot, waitForGauge } from './capacity.js';
import { faultFields, param, type ScenarioContext, sumFaults } from './context.js';

/** Issue 21: 50,000 held calls across 3 nodes on one Redis. */
const GOAL = { held: 50_000, rssPerCallKb: 16, redisPerInquiryKb: 3 };
const KB = 1024;
/** File descriptors a node needs besides one per held call. */
const FD_HEADROOM = 150;

/**
 * Capacity across several nodes on one Redis: `held` suspended send_inquiry calls spread evenly
 * over `nodes` nodes (each under the open-file limit), parked by `workers` load processes (each on
 * one node, round-robin; each under the limit too), then every call answered by its own device
 * with its own answer and checked. Reports RSS per held call (all nodes, above idle, after a
 * forced GC) and Redis `used_memory` per pending inquiry.
 */
export async function capacityNodes(ctx: ScenarioContext): Promise<Fields> {
  const nodeCount = param(ctx, 'nodes', { quick: 3, full: 3 });
  const target = param(ctx, 'held', { quick: 600, full: GOAL.held });
  const workers = param(ctx, 'workers', { quick: 3, full: 6 });
  const users = param(ctx, 'users', { quick: 5, full: 20 });
  const heartbeatMs = param(ctx, 'heartbeatMs', { quick: 60_000, full: 120_000 });
  const fdLimit = openFileLimit() ?? Number.POSITIVE_INFINITY;
  const perNode = Math.ceil(target / nodeCount);
  const perWorker = Math.ceil(target / workers);
  const devicesPerNode = users * Math.ceil(workers / nodeCount);
  if (perNode + FD_HEADROOM + devicesPerNode > fdLimit || perWorker + FD_HEADROOM > fdLimit)
    throw new Error(
      `open-file limit ${fdLimit}: ${perNode} calls per node or ${perWorker} per load process is too many; add nodes or workers`,
    );
  const redis = await startRedisServer();
  ctx.cleanup.add(() => redis.stop());
  const nodes = await Promise.all(
    Array.from({ length: nodeCount }, async (_, i) => {
      const inspect = await inspectFlag();
      const node = await startNode(i, {
        redisUrl: redis.url,
        execArgv: [inspect.flag],
        env: { HITL_HEARTBEAT_MS: String(heartbeatMs) },
      });
      ctx.cleanup.add(() => node.stop());
      const probe = startProbe(inspect.port);
      ctx.cleanup.add(() => probe.stop());
      return { node, probe };
    }),
  );
  const storeBytes = () => redisUsedBytes(redis.url);
  const measureAll = () =>
    Promise.all(nodes.map(({ node, probe }) => measure(node, storeBytes, () => probe.ask({ op: 'gc' }))));
  const sum = (snapshots: Snapshot[], key: 'rss' | 'heapUsed') => snapshots.reduce((a, m) => a + m[key], 0);

  // Warm each node up (JIT, pools) so idle is idle of a node that has served calls.
  const warm = nodes.map(({ node }, i) =>
    startWorker<CapacityResult>('capacity', {
      secret: BENCH_SECRET,
      url: node.url,
      users,
      ramp: 100,
      tag: `warm${i}`,
      held: 200,
      answerAtOnce: true,
    }),
  );
  for (const w of warm) ctx.cleanup.add(() => w.kill());
  await Promise.all(warm.map((w) => w.result));
  const idle = await measureAll();
  ctx.log(`${nodeCount} nodes idle; parking ${target} calls from ${workers} processes (${perNode} per node)`);

  const started = Date.now();
  const load: WorkerHandle<CapacityResult>[] = Array.from({ length: workers }, (_, w) => {
    const { node } = nodes[w % nodeCount] as (typeof nodes)[number];
    const params: CapacityParams = {
      secret: BENCH_SECRET,
      url: node.url,
      users,
      ramp: 200,
      tag: `capn${w}`,
      held: Math.max(0, Math.min(perWorker, target - w * perWorker)),
    };
    const worker = startWorker<CapacityResult>('capacity', params);
    ctx.cleanup.add(() => worker.kill());
    return worker;
  });
  const parked = await allNext<{ parked: number; parkMs: number }>(load, 'parked');
  const expected = nodes.map((_, i) =>
    load.reduce(
      (a, _w, w) => a + (w % nodeCount === i ? Math.max(0, Math.min(perWorker, target - w * perWorker)) : 0),
      0,
    ),
  );
  const gauges = nodes.map(() => 0);
  await Promise.all(
    nodes.map(({ node }, i) =>
      waitForGauge(node.url, expected[i] as number, (n) => {
        gauges[i] = n;
      }),
    ),
  );
  const held = gauges.reduce((a, b) => a + b, 0);
  ctx.log(`parked ${held} in ${((Date.now() - started) / 1000).toFixed(0)} s; measuring`);
  await sleep(2000);
  const full = await measureAll();
  const fds = nodes.map(({ node }) => readdirSync(`/proc/${node.pid}/fd`).length);
  ctx.log(
    `parked: RSS ${((sum(full, 'rss') - sum(idle, 'rss')) / held / KB).toFixed(1)} KB per call over all nodes, Redis ${(((full[0]?.storeBytes ?? 0) - (idle[0]?.storeBytes ?? 0)) / held / KB).toFixed(2)} KB per inquiry, fds ${fds.join('/')}`,
  );
  for (const worker of load) worker.signal('answer');
  const results = await Promise.all(load.map((w) => w.result));
  const answered = results.reduce((a, r) => a + r.answered, 0);
  const faults = faultFields(sumFaults(results.map((r) => r.faults)));
  for (const r of results) for (const s of r.samples) ctx.log(`fault: ${s}`);
  const per = (after: number, before: number) => (after - before) / Math.max(1, held) / KB;
  const rssPerCall = per(sum(full, 'rss'), sum(idle, 'rss'));
  const redisPerInquiry = per(full[0]?.storeBytes ?? 0, idle[0]?.storeBytes ?? 0);
  return {
    nodes: nodeCount,
    held_target: target,
    held,
    held_per_node: gauges.join('/'),
    node_fds: fds.join('/'),
    fd_limit: Number.isFinite(fdLimit) ? fdLimit : -1,
    rss_per_call_kb: rssPerCall,
    heap_per_call_kb: per(sum(full, 'heapUsed'), sum(idle, 'heapUsed')),
    redis_per_inquiry_kb: redisPerInquiry,
    heartbeat_s: heartbeatMs / 1000,
    ...parkAndRelease(held, parked, results),
    answered,
    ...faults,
    ok: faults.faults === 0 && answered === held && held === target,
    goal:
      held >= GOAL.held && rssPerCall <= GOAL.rssPerCallKb && redisPerInquiry <= GOAL.redisPerInquiryKb
        ? 'met'
        : 'missed',
  };
}
