import { readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import { mergeHists, summarize } from '../core/hist.js';
import type { Fields } from '../core/summary.js';
import { cpuSeconds, openFileLimit, rssBytes } from '../env/limits.js';
import { BENCH_SECRET, type NodeHandle, startNode } from '../env/nodes.js';
import { inspectFlag, startProbe } from '../env/probe-handle.js';
import { allNext, startWorker, type WorkerHandle } from '../env/workers.js';
import type { CapacityParams, CapacityResult, HeldPath } from '../load/capacity.js';
import { sleep } from '../load/util.js';
import { faultFields, param, type ScenarioContext, sumFaults } from './context.js';

const GOAL = { held: 20_000, rssPerCallKb: 40 };
/** File descriptors a node needs besides one per held call: Redis links, listener, devices, stdio. */
const FD_HEADROOM = 150;
const KB = 1024;
const MB = 1024 * 1024;

/** Where the node keeps its inquiries: Redis, or (no Redis) the volatile or the SQLite store. */
export type CapacityStore = 'redis' | 'memory' | 'sqlite';

/**
 * Capacity: how many suspended calls ONE node holds (`send_inquiry` calls; with `path`,
 * `get_inquiry` waits or `tasks/result` waits, see {@link HeldPath}), and what each costs in RSS
 * above idle (VmRSS from /proc after a full GC forced through the inspector, and before it).
 * `--set snapshot=1` also writes heap snapshots at idle and when parked (use a small `held`; the
 * snapshots themselves inflate the RSS figures of that run). Heartbeats every 60 s by default
 * (`--set heartbeatMs=`): the memory per call is the same at any period, and 10 s heartbeats to
 * 20k calls starve a shared 2-core box of the CPU needed to park them at all.
 * The store's own cost per pending inquiry: Redis `used_memory`, or the SQLite file (+ WAL) bytes; the
 * memory store's rows are inside the node's heap and RSS.
 */
export function capacity(store: CapacityStore, path: HeldPath = 'send') {
  return (ctx: ScenarioContext) => capacityOn(store, path, ctx);
}

async function capacityOn(store: CapacityStore, path: HeldPath, ctx: ScenarioContext): Promise<Fields> {
  const target = param(ctx, 'held', { quick: 500, full: GOAL.held });
  const workers = param(ctx, 'workers', { quick: 1, full: 2 });
  const users = param(ctx, 'users', { quick: 5, full: 20 });
  const warmCalls = param(ctx, 'warm', { quick: 50, full: 500 });
  const heartbeatMs = param(ctx, 'heartbeatMs', { quick: 60_000, full: 60_000 });
  const settleMs = param(ctx, 'settleMs', { quick: 500, full: 2000 });
  const cpuWindowMs = param(ctx, 'cpuWindowMs', { quick: 2000, full: 10_000 });
  const fdLimit = openFileLimit() ?? Number.POSITIVE_INFINITY;
  const held = Math.min(target, fdLimit - FD_HEADROOM - users * workers);
  if (held < target)
    ctx.log(`open-file limit ${fdLimit} caps one node at ${held} held calls (asked ${target})`);
  const redis = store === 'redis' ? await startRedisServer() : undefined;
  if (redis) ctx.cleanup.add(() => redis.stop());
  const inspect = await inspectFlag();
  const node = await startNode(0, {
    ...(redis ? { redisUrl: redis.url } : {}),
    execArgv: [inspect.flag],
    env: { HITL_HEARTBEAT_MS: String(heartbeatMs), ...(redis ? {} : { HITL_STORE: store }) },
  });
  ctx.cleanup.add(() => node.stop());
  const storeBytes = (): Promise<number> =>
    redis ? redisUsedBytes(redis.url) : Promise.resolve(store === 'sqlite' ? fileBytes(node.stateDir) : 0);
  const probe = startProbe(inspect.port);
  ctx.cleanup.add(() => probe.stop());
  const ask = probe.ask;
  const base = { secret: BENCH_SECRET, url: node.url, users, ramp: 200, path };
  const warm = startWorker<CapacityResult>('capacity', {
    ...base,
    tag: 'warm',
    held: warmCalls,
    answerAtOnce: true,
  });
  ctx.cleanup.add(() => warm.kill());
  await warm.result;

  const idle = await measure(node, storeBytes, () => ask<NodeJS.MemoryUsage>({ op: 'gc' }));
  const snapshot = ctx.overrides.snapshot ? join(tmpdir(), `hitl-bench-heap-${Date.now()}`) : undefined;
  if (snapshot) await ask({ op: 'snapshot', file: `${snapshot}-idle.heapsnapshot` });
  ctx.log(`idle RSS ${(idle.rss / MB).toFixed(1)} MB; parking ${held} calls from ${workers} processes`);
  const load: WorkerHandle<CapacityResult>[] = Array.from({ length: workers }, (_, w) => {
    const share = Math.ceil(held / workers);
    const params: CapacityParams = { ...base, tag: `cap${w}`, held: Math.min(share, held - w * share) };
    const worker = startWorker<CapacityResult>('capacity', params);
    ctx.cleanup.add(() => worker.kill());
    return worker;
  });
  const parked = await allNext<{ parked: number; parkMs: number }>(load, 'parked');
  let heldGauge = 0;
  await waitForGauge(node.url, held, (n) => {
    heldGauge = n;
  });
  await sleep(settleMs);
  const rssNoGc = rssBytes(node.pid);
  const full = await measure(node, storeBytes, () => ask<NodeJS.MemoryUsage>({ op: 'gc' }));
  const fds = readdirSync(`/proc/${node.pid}/fd`).length;
  // What holding costs in CPU with nothing happening: heartbeats and the SDK's SSE keep-alives.
  // `--set cpuprof=1`: a CPU profile of the node over that window.
  const profile =
    ctx.overrides.cpuprof === 1 ? join(tmpdir(), `hitl-bench-parked-${Date.now()}.cpuprofile`) : undefined;
  if (profile) await ask({ op: 'profile-start' });
  const cpuBefore = cpuSeconds(node.pid);
  await sleep(cpuWindowMs);
  const parkedCpu = (cpuSeconds(node.pid) - cpuBefore) / (cpuWindowMs / 1000);
  if (profile) {
    await ask({ op: 'profile-stop', file: profile });
    ctx.log(`CPU profile of the parked node: ${profile}`);
  }
  if (snapshot) await ask({ op: 'snapshot', file: `${snapshot}-parked.heapsnapshot` });
  ctx.log(
    `parked: RSS ${(full.rss / MB).toFixed(1)} MB (${(rssNoGc / MB).toFixed(1)} MB before GC), ${fds} fds`,
  );
  for (const worker of load) worker.signal('answer');
  const results = await Promise.all(load.map((w) => w.result));
  const after = await measure(node, storeBytes, () => ask<NodeJS.MemoryUsage>({ op: 'gc' }));
  if (snapshot) await ask({ op: 'snapshot', file: `${snapshot}-released.heapsnapshot` });
  if (snapshot) ctx.log(`heap snapshots: ${snapshot}-{idle,parked,released}.heapsnapshot`);

  const per = (a: number, b: number) => (a - b) / held / KB;
  const answered = results.reduce((a, r) => a + r.answered, 0);
  const faults = faultFields(sumFaults(results.map((r) => r.faults)));
  for (const r of results) for (const s of r.samples) ctx.log(`fault: ${s}`);
  const rssPerCall = per(full.rss, idle.rss);
  return {
    held_target: target,
    held: heldGauge,
    fd_limit: Number.isFinite(fdLimit) ? fdLimit : -1,
    capped_by_fd_limit: held < target,
    node_fds: fds,
    rss_idle_mb: idle.rss / MB,
    rss_parked_mb: full.rss / MB,
    rss_per_call_kb: rssPerCall,
    rss_per_call_nogc_kb: per(rssNoGc, idle.rss),
    heap_per_call_kb: per(full.heapUsed, idle.heapUsed),
    external_per_call_kb: per(full.external, idle.external),
    store,
    path,
    ...(store === 'redis' ? { redis_per_inquiry_kb: per(full.storeBytes, idle.storeBytes) } : {}),
    ...(store === 'sqlite' ? { file_per_inquiry_kb: per(full.storeBytes, idle.storeBytes) } : {}),
    heartbeat_s: heartbeatMs / 1000,
    parked_cpu_util: parkedCpu,
    heap_after_release_mb: after.heapUsed / MB,
    heap_idle_mb: idle.heapUsed / MB,
    ...parkAndRelease(held, parked, results),
    answered,
    ...faults,
    ok: faults.faults === 0 && answered === held && heldGauge === held,
    goal: heldGauge >= GOAL.held && rssPerCall <= GOAL.rssPerCallKb ? 'met' : 'missed',
  };
}

/** How fast calls were parked, and how fast (and how evenly) they resumed once answered. */
export function parkAndRelease(
  held: number,
  parked: { parkMs: number }[],
  results: CapacityResult[],
): Fields {
  const release = summarize(mergeHists(results.map((r) => r.hist)));
  return {
    park_per_s: held / (Math.max(...parked.map((p) => p.parkMs)) / 1000),
    release_all_s: Math.max(...results.map((r) => r.releaseMs)) / 1000,
    release_p50_ms: release.p50_ms,
    release_p99_ms: release.p99_ms,
  };
}

export interface Snapshot extends NodeJS.MemoryUsage {
  /** What the store holds outside the node: Redis `used_memory`, or the SQLite file and its WAL. */
  storeBytes: number;
}

/** The node's memory after a forced full GC, RSS from /proc, and the store's bytes. */
export async function measure(
  node: NodeHandle,
  storeBytes: () => Promise<number>,
  gc: () => Promise<NodeJS.MemoryUsage>,
): Promise<Snapshot> {
  const inside = await gc();
  await sleep(500);
  return { ...inside, rss: rssBytes(node.pid), storeBytes: await storeBytes() };
}

export async function redisUsedBytes(url: string): Promise<number> {
  const redis = new Redis(url);
  try {
    const info = await redis.info('memory');
    return Number(info.match(/^used_memory:(\d+)/m)?.[1] ?? Number.NaN);
  } finally {
    redis.disconnect();
  }
}

/** The embedded store's file and its write-ahead log, in bytes. */
function fileBytes(stateDir: string): number {
  const size = (name: string) => {
    try {
      return statSync(join(stateDir, name)).size;
    } catch {
      return 0;
    }
  };
  return size('hitl.db') + size('hitl.db-wal');
}

/** Polls the node's `hitl_held_calls` gauge until it reads `expected` (or 120 s pass). */
export async function waitForGauge(url: string, expected: number, seen: (n: number) => void): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const n = Number(text.match(/^hitl_held_calls (\d+)/m)?.[1] ?? 0);
    seen(n);
    if (n === expected) return;
    await sleep(500);
  }
}
