import { startRedisServer } from '@hitl/store/testing';
import type { Fields } from '../core/summary.js';
import { cpuSeconds } from '../env/limits.js';
import { nodeStats } from '../env/nodes.js';
import { startProfiledNodes } from '../env/probe-handle.js';
import { sleep } from '../load/util.js';
import { capacity } from './capacity.js';
import { param, type ScenarioContext } from './context.js';

/** Issue 41: an idle node, nothing connected, costs at most this much CPU per second on every store. */
const GOAL_MS_PER_S = 2;
const STORES = ['memory', 'sqlite', 'redis'] as const;
type IdleStore = (typeof STORES)[number];

/**
 * What a node does when nothing happens: one node per store (the volatile store, the embedded
 * SQLite store, Redis), nothing connected, its own CPU time (`process.cpuUsage`, asked over IPC, so
 * the load on the shared machine does not count) over a `windowMs` window after `settleMs` of quiet.
 * The quiet lasts until V8's memory reducer has run (at most `settleMs`, 60 s at full scale): some
 * 20–50 s after start, once allocation has slowed, it runs its few full collections (≈ 0.3 s of CPU
 * once, seen with `--trace-gc` as "Mark-Compact (reduce)"); a window that catches it measures the
 * end of start-up, not an idle node. The quiet ends 3 s after the first second over 25 ms.
 * `--set cpuprof=1` writes a CPU profile of each window (the inspector's own cost is then included).
 */
export async function idle(ctx: ScenarioContext): Promise<Fields> {
  const settleMs = param(ctx, 'settleMs', { quick: 1000, full: 60_000 });
  const windowMs = param(ctx, 'windowMs', { quick: 3000, full: 20_000 });
  const fields: Fields = {};
  let worst = 0;
  for (const store of STORES) {
    const { msPerS, spikes } = await idleOn(store, settleMs, windowMs, ctx);
    fields[`${store}_ms_per_s`] = msPerS;
    fields[`${store}_spikes`] = spikes;
    worst = Math.max(worst, msPerS);
  }
  return {
    window_s: windowMs / 1000,
    ...fields,
    worst_ms_per_s: worst,
    ok: true,
    goal: worst <= GOAL_MS_PER_S ? 'met' : 'missed',
  };
}

/** A second of the window that cost more than this is named in the log (a collection, not a wake-up). */
const SPIKE_MS = 25;

/**
 * Reads a node's CPU time a stretch at a time, from its threads' `schedstat` (the node does nothing
 * for it): each call waits `ms` and returns the CPU ms used meanwhile.
 */
function cpuMeter(pid: number): (ms: number) => Promise<number> {
  let last = cpuSeconds(pid);
  return async (ms) => {
    // time itself is under test: an idle node's CPU time, read a stretch at a time.
    await sleep(ms);
    const now = cpuSeconds(pid);
    const used = (now - last) * 1000;
    last = now;
    return used;
  };
}

/** The node's CPU time in each second of the window. */
async function perSecond(pid: number, windowMs: number): Promise<number[]> {
  const meter = cpuMeter(pid);
  const seconds: number[] = [];
  for (let at = 0; at < windowMs; at += 1000) seconds.push(await meter(Math.min(1000, windowMs - at)));
  return seconds;
}

/**
 * Waits until the node's start-up is over: 3 s past its first second over {@link SPIKE_MS} (V8's
 * memory reducer), or `maxMs`. Returns the second of that spike, if there was one.
 */
async function settle(pid: number, maxMs: number): Promise<number | undefined> {
  const meter = cpuMeter(pid);
  let spikeAt: number | undefined;
  for (let second = 1; second * 1000 <= maxMs; second++) {
    const used = await meter(1000);
    if (spikeAt === undefined && used > SPIKE_MS) spikeAt = second;
    if (spikeAt !== undefined && second >= spikeAt + 3) return spikeAt;
  }
  return spikeAt;
}

async function idleOn(store: IdleStore, settleMs: number, windowMs: number, ctx: ScenarioContext) {
  const redis = store === 'redis' ? await startRedisServer() : undefined;
  const profile = ctx.overrides.cpuprof === 1;
  const stopRedis = () => redis?.stop();
  const profiled = await startProfiledNodes(
    1,
    redis?.url,
    profile,
    ctx.cleanup,
    store === 'redis' ? {} : { HITL_STORE: store },
  );
  const node = profiled.nodes[0];
  if (!node) throw new Error('no node');
  try {
    const settled = await settle(node.pid, settleMs);
    if (settled !== undefined) ctx.log(`${store}: start-up's last collection ${settled} s after listening`);
    await profiled.start();
    const before = await nodeStats(node);
    const seconds = await perSecond(node.pid, windowMs);
    const after = await nodeStats(node);
    const dir = await profiled.stop();
    if (dir) ctx.log(`${store}: CPU profile of the idle window in ${dir}`);
    const msPerS = (after.cpuMs - before.cpuMs) / (windowMs / 1000);
    const spikes = seconds.flatMap((ms, i) => (ms > SPIKE_MS ? [`${i + 1} s: ${ms.toFixed(0)} ms`] : []));
    ctx.log(
      `${store}: ${msPerS.toFixed(2)} ms CPU per second idle` +
        (spikes.length > 0 ? ` (seconds over ${SPIKE_MS} ms: ${spikes.join(', ')})` : ''),
    );
    return { msPerS, spikes: spikes.length };
  } finally {
    await node.stop();
    await stopRedis();
  }
}

/** Issue 41: a node holding 10,000 parked calls and nothing else happening, CPU ms per second. */
const GOAL_HELD_MS_PER_S = 20;

/**
 * A node on Redis holding `held` parked `send_inquiry` calls (10,000; each with a progress token)
 * with the node's default heartbeat (`HITL_HEARTBEAT_MS`, 10 s), nothing else happening: its CPU
 * time per second over `cpuWindowMs` (the `capacity` scenario's parked window, from /proc).
 */
export async function idleHeld(ctx: ScenarioContext): Promise<Fields> {
  const overrides = {
    held: param(ctx, 'held', { quick: 500, full: 10_000 }),
    heartbeatMs: param(ctx, 'heartbeatMs', { quick: 10_000, full: 10_000 }),
    cpuWindowMs: param(ctx, 'cpuWindowMs', { quick: 3000, full: 20_000 }),
    // 40 s of quiet: parking allocates, and V8's memory reducer follows it (see `idle`).
    settleMs: param(ctx, 'settleMs', { quick: 1000, full: 40_000 }),
  };
  const fields = await capacity('redis')({ ...ctx, overrides: { ...ctx.overrides, ...overrides } });
  const msPerS = 1000 * Number(fields.parked_cpu_util);
  return {
    held: fields.held ?? 0,
    heartbeat_s: fields.heartbeat_s ?? 0,
    cpu_window_s: overrides.cpuWindowMs / 1000,
    parked_ms_per_s: msPerS,
    rss_per_call_kb: fields.rss_per_call_kb ?? 0,
    answered: fields.answered ?? 0,
    faults: fields.faults ?? 0,
    ok: fields.ok === true,
    goal: msPerS <= GOAL_HELD_MS_PER_S && fields.ok === true ? 'met' : 'missed',
  };
}
