import { startRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import type { Fields } from '../core/summary.js';
import { BENCH_SECRET, type NodeStats, nodeStats, startNodes } from '../env/nodes.js';
import { startWorker } from '../env/workers.js';
import type { ScaleOutParams, ScaleOutResult } from '../load/scale-out.js';
import { faultFields, param, type ScenarioContext, sumFaults } from './context.js';

/** Goals (issue 22): messages a node hears per cycle of its own, and Redis bytes per cycle, flat in N. */
const GOAL_MESSAGES_PER_LOCAL_CYCLE = 1.5;
const GOAL_BYTES_GROWTH = 1.2;

/** Bytes Redis has written to its clients so far (`INFO stats`). */
async function outputBytes(url: string): Promise<number> {
  const redis = new Redis(url);
  try {
    const info = await redis.info('stats');
    return Number(/^total_net_output_bytes:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
  } finally {
    redis.disconnect();
  }
}

/**
 * Scale-out: the same offered load (full cycles at `rate`/s, each user's agent and device on one
 * node) on 2, 4 (and 8) node processes sharing one Redis. Per N: the most messages any node
 * received from Redis per cycle of its own users (`msgs_per_local_cycle_n<N>`), Redis output bytes
 * per cycle (`bytes_per_cycle_n<N>`), node CPU ms per local cycle and RSS.
 */
export async function scaleOut(ctx: ScenarioContext): Promise<Fields> {
  const rate = param(ctx, 'rate', { quick: 50, full: 100 });
  const seconds = param(ctx, 'seconds', { quick: 3, full: 20 });
  const users = param(ctx, 'users', { quick: 64, full: 400 });
  const largest = param(ctx, 'maxnodes', { quick: 4, full: 8 });
  const counts = [2, 4, 8].filter((n) => n <= largest);
  const fields: Fields = { rate_per_s: rate, window_s: seconds, users };
  const faults: Record<string, number>[] = [];
  let worstMessages = 0;
  const bytes: number[] = [];
  for (const n of counts) {
    const result = await runWith(ctx, n, { rate, seconds, users });
    faults.push(result.faults);
    worstMessages = Math.max(worstMessages, result.messagesPerLocalCycle);
    bytes.push(result.bytesPerCycle);
    fields[`cycles_n${n}`] = result.cycles;
    fields[`msgs_per_local_cycle_n${n}`] = round(result.messagesPerLocalCycle);
    fields[`bytes_per_cycle_n${n}`] = Math.round(result.bytesPerCycle);
    fields[`cpu_ms_per_local_cycle_n${n}`] = round(result.cpuMsPerLocalCycle);
    fields[`rss_mb_n${n}`] = Math.round(result.rssMb);
  }
  const growth = (bytes.at(-1) ?? 0) / (bytes[0] || 1);
  const faultCounts = faultFields(sumFaults(faults));
  return {
    ...fields,
    bytes_growth: round(growth),
    ...faultCounts,
    ok: faultCounts.faults === 0,
    goal: worstMessages <= GOAL_MESSAGES_PER_LOCAL_CYCLE && growth <= GOAL_BYTES_GROWTH ? 'met' : 'missed',
  };
}

const round = (x: number) => Math.round(x * 100) / 100;

interface RunFigures {
  cycles: number;
  messagesPerLocalCycle: number;
  bytesPerCycle: number;
  cpuMsPerLocalCycle: number;
  rssMb: number;
  faults: Record<string, number>;
}

async function runWith(
  ctx: ScenarioContext,
  n: number,
  load: { rate: number; seconds: number; users: number },
): Promise<RunFigures> {
  const redis = await startRedisServer();
  ctx.cleanup.add(() => redis.stop());
  const nodes = await startNodes(n, { redisUrl: redis.url });
  ctx.cleanup.add(() => Promise.all(nodes.map((node) => node.stop())));
  const params: ScaleOutParams = {
    secret: BENCH_SECRET,
    nodeUrls: nodes.map((node) => node.url),
    users: load.users,
    ratePerSec: load.rate,
    durationMs: load.seconds * 1000,
    tag: `scale${n}`,
  };
  const worker = startWorker<ScaleOutResult>('scale-out', params);
  ctx.cleanup.add(() => worker.kill());
  await worker.next('ready');
  // Let connect-time traffic (syncs, socket caps) settle before the window opens.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = await Promise.all(nodes.map(nodeStats));
  const bytesBefore = await outputBytes(redis.url);
  worker.signal('go');
  const result = await worker.result;
  const after = await Promise.all(nodes.map(nodeStats));
  const bytesAfter = await outputBytes(redis.url);
  for (const s of result.samples) ctx.log(`fault: ${s}`);
  const cycles = result.cyclesPerNode.reduce((a, b) => a + b, 0);
  const per = (pick: (s: NodeStats) => number) =>
    after.map((s, i) => (pick(s) - pick(before[i] as NodeStats)) / Math.max(1, result.cyclesPerNode[i] ?? 0));
  const messages = per((s) => s.messages);
  const cpu = per((s) => s.cpuMs);
  ctx.log(`${n} nodes: ${cycles} cycles; messages per local cycle by node ${messages.map(round).join(' ')}`);
  await Promise.all(nodes.map((node) => node.stop()));
  await redis.stop();
  return {
    cycles,
    messagesPerLocalCycle: Math.max(...messages),
    bytesPerCycle: (bytesAfter - bytesBefore) / Math.max(1, cycles),
    cpuMsPerLocalCycle: cpu.reduce((a, b) => a + b, 0) / cpu.length,
    rssMb: Math.max(...after.map((s) => s.rssBytes)) / 2 ** 20,
    faults: result.faults,
  };
}
