import { mergeHists, summarize } from '../core/hist.js';
import type { Fields } from '../core/summary.js';
import { cpuSeconds, cpuTimes } from '../env/limits.js';
import { BENCH_SECRET } from '../env/nodes.js';
import { SlowlogWindow, usecPerUnit } from '../env/redis-slowlog.js';
import {
  type CommandStats,
  commandStats,
  monitorCounts,
  perUnit,
  SCRIPT_COMMANDS,
  total,
} from '../env/redis-stats.js';
import { allNext, startWorker } from '../env/workers.js';
import type { ThroughputParams, ThroughputResult } from '../load/throughput.js';
import { sleep } from '../load/util.js';
import { faultFields, param, type ScenarioContext, sumFaults } from './context.js';
import { nodesOnRedis } from './nodes-on-redis.js';

const GOAL_PER_S = 1500;

/**
 * Full cycles per second with 2 nodes and the clients in separate load-generator processes; the
 * call goes to one node, the device answers on the other. `--set cpuprof=1` writes V8 CPU profiles
 * of both nodes over the measured window (through the inspector; see docs/BENCHMARKS.md);
 * `--set slowlog=1` adds `redis_top_usec`, Redis's time per cycle by command and by script.
 */
export async function throughput(ctx: ScenarioContext): Promise<Fields> {
  const workers = param(ctx, 'workers', { quick: 2, full: 2 });
  const concurrency = param(ctx, 'concurrency', { quick: 16, full: 64 });
  const warmupMs = param(ctx, 'warmupMs', { quick: 1000, full: 5000 });
  const durationMs = param(ctx, 'durationMs', { quick: 3000, full: 20_000 });
  const { redis, profiled, nodes } = await nodesOnRedis(ctx);
  const load = Array.from({ length: workers }, (_, w) => {
    const params: ThroughputParams = {
      secret: BENCH_SECRET,
      nodeUrls: nodes.map((n) => n.url),
      worker: w,
      concurrency,
      warmupMs,
      durationMs,
      tag: 'tp',
    };
    const worker = startWorker<ThroughputResult>('throughput', params);
    ctx.cleanup.add(() => worker.kill());
    return worker;
  });
  await allNext(load, 'ready');
  ctx.log(
    `${workers} load processes × ${concurrency} calls in flight; ${warmupMs} ms warm-up, ${durationMs} ms measured`,
  );
  for (const worker of load) worker.signal('go');
  await sleep(warmupMs);
  const pids = [...nodes.map((n) => n.pid), ...load.map((w) => w.pid)];
  await profiled.start();
  const slowlog = ctx.overrides.slowlog ? await SlowlogWindow.open(redis.url) : undefined;
  const redisBefore = await commandStats(redis.url);
  const cpuBefore = pids.map(cpuSeconds);
  const sysBefore = nodes.map((n) => cpuTimes(n.pid).system);
  // 2 s in the middle of the window also under MONITOR: commands sent by the nodes vs run by Redis.
  const monitorMs = Math.min(2000, Math.floor(durationMs / 2));
  const monitoring = sleep((durationMs - monitorMs) / 2).then(() => monitorCounts(redis.url, monitorMs));
  await sleep(durationMs);
  // A load process may already have finished its lanes and exited when this runner's timer is late
  // (a loaded machine, a slow profiler start): its CPU then counts as none (load_cpu_partial).
  let loadGone = 0;
  const cpuAfter = pids.map((pid, i) => {
    try {
      return cpuSeconds(pid) - (cpuBefore[i] as number);
    } catch (error) {
      if (i < nodes.length) throw error;
      loadGone++;
      return 0;
    }
  });
  const nodeSys = nodes.reduce((a, n, i) => a + cpuTimes(n.pid).system - (sysBefore[i] as number), 0);
  const redisAfter = await commandStats(redis.url);
  const topUsec = slowlog ? await slowlog.close() : undefined;
  const monitored = await monitoring;
  const profileDir = await profiled.stop();
  const results = await Promise.all(load.map((w) => w.result));
  const completed = results.reduce((a, r) => a + r.completed, 0);
  const latency = summarize(mergeHists(results.map((r) => r.hist)));
  const faults = faultFields(sumFaults(results.map((r) => r.faults)));
  for (const r of results) for (const s of r.samples) ctx.log(`fault: ${s}`);
  const perSecond = completed / (durationMs / 1000);
  const nodeCpu = cpuAfter.slice(0, nodes.length).reduce((a, b) => a + b, 0);
  const loadCpu = cpuAfter.slice(nodes.length).reduce((a, b) => a + b, 0);
  if (profileDir) ctx.log(`CPU profiles of both nodes (measured window only) in ${profileDir}`);
  return {
    in_flight: workers * concurrency,
    per_s: perSecond,
    completed,
    cycles: results.reduce((a, r) => a + r.cycles, 0),
    ...latency,
    node_cpu_ms_per_cycle: (1000 * nodeCpu) / Math.max(1, completed),
    load_cpu_ms_per_cycle: (1000 * loadCpu) / Math.max(1, completed),
    ...(loadGone > 0 ? { load_cpu_partial: true } : {}),
    node_cpu_util: nodeCpu / (durationMs / 1000),
    node_cpu_sys_share: nodeSys / Math.max(0.01, nodeCpu),
    redis_cmds_per_cycle: (total(redisAfter.calls) - total(redisBefore.calls)) / Math.max(1, completed),
    redis_cmds: perUnit(redisBefore.calls, redisAfter.calls, completed),
    ...redisUsecFields(redisBefore, redisAfter, completed),
    ...(topUsec ? { redis_top_usec: usecPerUnit(topUsec, completed) } : {}),
    redis_sent_per_cycle: monitored.sent / Math.max(1, monitored.resolutions),
    redis_sent: perUnit({}, monitored.sentByName, monitored.resolutions),
    ...faults,
    ok: faults.faults === 0 && completed > 0,
    goal: perSecond >= GOAL_PER_S && faults.faults === 0 ? 'met' : 'missed',
  };
}

/**
 * Redis's own CPU time per cycle from `INFO commandstats`: `redis_usec_per_cycle` sums `usec` over
 * every command (a script's inner calls counted under the script and again under their names),
 * `redis_script_usec_per_cycle` is the scripts' share, `redis_usec` the breakdown by command, and
 * `redis_cpu_usec_per_cycle` the Redis process's CPU time (`INFO cpu`: parsing, replies, I/O too).
 */
function redisUsecFields(before: CommandStats, after: CommandStats, cycles: number): Fields {
  const per = Math.max(1, cycles);
  const delta = (name: string) => (after.usec[name] ?? 0) - (before.usec[name] ?? 0);
  const scripts = [...SCRIPT_COMMANDS].reduce((a, name) => a + delta(name), 0);
  return {
    redis_usec_per_cycle: (total(after.usec) - total(before.usec)) / per,
    redis_script_usec_per_cycle: scripts / per,
    redis_cpu_usec_per_cycle: (after.cpuUsec - before.cpuUsec) / per,
    redis_usec: perUnit(before.usec, after.usec, per),
  };
}
