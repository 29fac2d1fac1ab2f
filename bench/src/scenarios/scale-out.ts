import { startRedisCluster, startRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import type { Fields } from '../core/summary.js';
import { BENCH_SECRET, type NodeStats, nodeStats, startNodes } from '../env/nodes.js';
import { startWorker } from '../env/workers.js';
import type { ScaleOutParams, ScaleOutResult } from '../load/scale-out.js';
import { faultFields, param, type ScenarioContext, sumFaults } from './context.js';

/** Goals (issue 22): messages a node hears per cycle of its own, and Redis bytes per cycle, flat in N. */
const GOAL_MESSAGES_PER_LOCAL_CYCLE = 1.5;
const GOAL_BYTES_GROWTH = 1.2;

interface ServerCounts {
  bytes: number;
  spublish: number;
  /** Commands run, those scripts ran included (`INFO commandstats`). */
  commands: number;
}

/** What one Redis server has done so far: bytes written to its clients, SPUBLISH calls, commands. */
async function serverCounts(url: string): Promise<ServerCounts> {
  const redis = new Redis(url);
  try {
    const [stats, commands] = [await redis.info('stats'), await redis.info('commandstats')];
    return {
      bytes: Number(/^total_net_output_bytes:(\d+)/m.exec(stats)?.[1] ?? Number.NaN),
      spublish: Number(/^cmdstat_spublish:calls=(\d+)/m.exec(commands)?.[1] ?? 0),
      commands: [...commands.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)].reduce((a, m) => a + Number(m[1]), 0),
    };
  } finally {
    redis.disconnect();
  }
}

/** Where the nodes' Redis is: the nodes' environment, the servers to read counters from. */
interface Backend {
  env: Record<string, string>;
  urls: string[];
  stop(): Promise<void>;
}

async function oneRedis(): Promise<Backend> {
  const redis = await startRedisServer();
  return { env: { REDIS_URL: redis.url }, urls: [redis.url], stop: () => redis.stop() };
}

async function threeMasters(): Promise<Backend> {
  // A port picked free can be taken before the server binds it (other processes on the machine): once more.
  const cluster = await startRedisCluster().catch(() => startRedisCluster());
  return {
    env: { REDIS_CLUSTER_NODES: cluster.seeds },
    urls: cluster.nodes.map((n) => `redis://${n.host}:${n.port}`),
    stop: () => cluster.stop(),
  };
}

/**
 * Scale-out: the same offered load (full cycles at `rate`/s, each user's agent and device on one
 * node) on 2, 4 (and 8) node processes sharing one Redis, then the largest N on a 3-master Redis
 * Cluster (`cluster_spublish_by_master`: the sharded channels' publishes per master). Per N: the most messages any node
 * received from Redis per cycle of its own users (`msgs_per_local_cycle_n<N>`), Redis output bytes
 * per cycle (`bytes_per_cycle_n<N>`), node CPU ms per local cycle and RSS.
 */
export async function scaleOut(ctx: ScenarioContext): Promise<Fields> {
  const rate = param(ctx, 'rate', { quick: 50, full: 100 });
  const seconds = param(ctx, 'seconds', { quick: 2, full: 20 });
  const users = param(ctx, 'users', { quick: 64, full: 400 });
  const largest = param(ctx, 'maxnodes', { quick: 2, full: 8 });
  const counts = [2, 4, 8].filter((n) => n <= largest);
  const fields: Fields = { rate_per_s: rate, window_s: seconds, users };
  const faults: Record<string, number>[] = [];
  let worstMessages = 0;
  const bytes: number[] = [];
  for (const n of counts) {
    const result = await runWith(ctx, n, { rate, seconds, users }, await oneRedis());
    faults.push(result.faults);
    worstMessages = Math.max(worstMessages, result.messagesPerLocalCycle);
    bytes.push(result.bytesPerCycle);
    fields[`cycles_n${n}`] = result.cycles;
    fields[`msgs_per_local_cycle_n${n}`] = round(result.messagesPerLocalCycle);
    fields[`bytes_per_cycle_n${n}`] = Math.round(result.bytesPerCycle);
    fields[`redis_cmds_per_cycle_n${n}`] = round(result.commandsPerCycle);
    fields[`cpu_ms_per_local_cycle_n${n}`] = round(result.cpuMsPerLocalCycle);
    fields[`rss_mb_n${n}`] = Math.round(result.rssMb);
  }
  const growth = (bytes.at(-1) ?? 0) / (bytes[0] || 1);
  // The largest N again on a 3-master Cluster: the fan-out channels must spread over the masters.
  const onCluster = await runWith(ctx, largest, { rate, seconds, users }, await threeMasters());
  faults.push(onCluster.faults);
  fields.cluster_nodes = largest;
  fields.cluster_msgs_per_local_cycle = round(onCluster.messagesPerLocalCycle);
  fields.cluster_bytes_per_cycle = Math.round(onCluster.bytesPerCycle);
  fields.cluster_spublish_by_master = onCluster.spublishByServer.join('/');
  const mastersUsed = onCluster.spublishByServer.filter((calls) => calls > 0).length;
  fields.cluster_masters_used = mastersUsed;
  const faultCounts = faultFields(sumFaults(faults));
  return {
    ...fields,
    bytes_growth: round(growth),
    ...faultCounts,
    ok: faultCounts.faults === 0 && mastersUsed > 1,
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
  /** Redis commands per cycle (all servers; those scripts ran included). */
  commandsPerCycle: number;
  /** SPUBLISH calls each Redis server took in the window. */
  spublishByServer: number[];
  faults: Record<string, number>;
}

async function runWith(
  ctx: ScenarioContext,
  n: number,
  load: { rate: number; seconds: number; users: number },
  backend: Backend,
): Promise<RunFigures> {
  ctx.cleanup.add(() => backend.stop());
  const nodes = await startNodes(n, { env: backend.env });
  ctx.cleanup.add(() => Promise.all(nodes.map((node) => node.stop())));
  const params: ScaleOutParams = {
    secret: BENCH_SECRET,
    nodeUrls: nodes.map((node) => node.url),
    users: load.users,
    ratePerSec: load.rate,
    durationMs: load.seconds * 1000,
    tag: `scale${n}-${backend.urls.length}`,
  };
  const worker = startWorker<ScaleOutResult>('scale-out', params);
  ctx.cleanup.add(() => worker.kill());
  await worker.next('ready');
  // Let connect-time traffic (syncs, socket caps) settle before the window opens.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = await Promise.all(nodes.map(nodeStats));
  const serversBefore = await Promise.all(backend.urls.map(serverCounts));
  worker.signal('go');
  const result = await worker.result;
  const after = await Promise.all(nodes.map(nodeStats));
  const serversAfter = await Promise.all(backend.urls.map(serverCounts));
  const delta = (pick: (c: ServerCounts) => number) =>
    serversAfter.map((c, i) => pick(c) - pick(serversBefore[i] as ServerCounts));
  for (const s of result.samples) ctx.log(`fault: ${s}`);
  const cycles = result.cyclesPerNode.reduce((a, b) => a + b, 0);
  const per = (pick: (s: NodeStats) => number) =>
    after.map((s, i) => (pick(s) - pick(before[i] as NodeStats)) / Math.max(1, result.cyclesPerNode[i] ?? 0));
  const messages = per((s) => s.messages);
  const cpu = per((s) => s.cpuMs);
  ctx.log(
    `${n} nodes on ${backend.urls.length} Redis: ${cycles} cycles; messages per local cycle by node ${messages.map(round).join(' ')}`,
  );
  await Promise.all(nodes.map((node) => node.stop()));
  await backend.stop();
  return {
    cycles,
    messagesPerLocalCycle: Math.max(...messages),
    bytesPerCycle: delta((c) => c.bytes).reduce((a, b) => a + b, 0) / Math.max(1, cycles),
    spublishByServer: delta((c) => c.spublish),
    commandsPerCycle: delta((c) => c.commands).reduce((a, b) => a + b, 0) / Math.max(1, cycles),
    cpuMsPerLocalCycle: cpu.reduce((a, b) => a + b, 0) / cpu.length,
    rssMb: Math.max(...after.map((s) => s.rssBytes)) / 2 ** 20,
    faults: result.faults,
  };
}
