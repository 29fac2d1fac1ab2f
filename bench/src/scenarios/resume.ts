import { startRedisServer } from '@hitl/store/testing';
import { mergeHists, summarize } from '../core/hist.js';
import type { Fields } from '../core/summary.js';
import { BENCH_SECRET } from '../env/nodes.js';
import { startProfiledNodes } from '../env/probe-handle.js';
import { startWorker } from '../env/workers.js';
import type { ResumeParams, ResumeResult } from '../load/resume.js';
import { baseline } from './baseline.js';
import { faultFields, param, type ScenarioContext } from './context.js';

/**
 * Same node: absolute bounds. Cross node: ratios to the in-run Hono floor (a POST held by a bare Hono
 * route, released by a socket.io event), which this shared machine can judge where milliseconds move.
 */
const GOAL = { p50: 2, p99: 10, crossRatioP50: 1.5, crossRatioP99: 2 };

/** Where the node keeps inquiries: Redis (one node or two), or the embedded memory / SQLite store. */
export type ResumeMode = 'same' | 'cross' | 'memory' | 'sqlite';

/**
 * Answer → resume: a device's answer emit → the SDK client's tool result, one answer in flight,
 * while `open` calls stay suspended. `cross`: the call is held by node A, the device is on node B.
 * `same`, `memory`, `sqlite`: one node, on Redis, the volatile store, the durable SQLite file.
 * `--set cpuprof=1` writes CPU profiles of the nodes over the timed phase.
 */
export function resume(mode: ResumeMode) {
  const cross = mode === 'cross';
  return async (ctx: ScenarioContext): Promise<Fields> => {
    const floor = ctx.baseline ?? (await ownBaseline(ctx));
    const embedded = mode === 'memory' || mode === 'sqlite';
    const redis = embedded ? undefined : await startRedisServer();
    if (redis) ctx.cleanup.add(() => redis.stop());
    const profiled = await startProfiledNodes(
      cross ? 2 : 1,
      redis?.url,
      ctx.overrides.cpuprof === 1,
      ctx.cleanup,
      embedded ? { HITL_STORE: mode } : {},
    );
    const { nodes } = profiled;
    const callNode = nodes[0]?.url as string;
    const params: ResumeParams = {
      secret: BENCH_SECRET,
      callUrl: callNode,
      answerUrl: (cross ? nodes[1]?.url : callNode) as string,
      users: param(ctx, 'users', { quick: 20, full: 100 }),
      open: param(ctx, 'open', { quick: 300, full: 1000 }),
      samples: param(ctx, 'samples', { quick: 400, full: 10_000 }),
      warmup: param(ctx, 'warmup', { quick: 100, full: 1000 }),
      tag: mode,
    };
    ctx.log(`${params.tag}: ${params.open} open calls, ${params.samples} timed answers`);
    const load = startWorker<ResumeResult>('resume', params);
    ctx.cleanup.add(() => load.kill());
    await load.next('parked');
    ctx.log(`${params.tag}: ${params.open} calls suspended; timing answers`);
    await profiled.start();
    const result = await load.result;
    const profileDir = await profiled.stop();
    if (profileDir) ctx.log(`CPU profiles of the node(s) while answers were timed: ${profileDir}`);
    const latency = summarize(mergeHists([result.hist]));
    const ack = summarize(mergeHists([result.ackHist]));
    const faults = faultFields(result.faults);
    const floorP50 = Number(floor.hono_p50_ms);
    const floorP99 = Number(floor.hono_p99_ms);
    const ratio = latency.p50_ms / floorP50;
    const ratioP99 = latency.p99_ms / floorP99;
    const goalMet = cross
      ? ratio <= GOAL.crossRatioP50 && ratioP99 <= GOAL.crossRatioP99
      : latency.p50_ms <= GOAL.p50 && latency.p99_ms <= GOAL.p99;
    return {
      open: params.open,
      ...latency,
      ack_p50_ms: ack.p50_ms,
      ack_p99_ms: ack.p99_ms,
      completed: result.completed,
      store: embedded ? mode : 'redis',
      floor: 'hono',
      floor_p50_ms: floorP50,
      floor_p99_ms: floorP99,
      ratio_p50: ratio,
      ratio_p99: ratioP99,
      ...faults,
      ok: faults.faults === 0 && result.measured === params.samples,
      goal: goalMet ? 'met' : 'missed',
    };
  };
}

/** Run alone, a latency scenario measures its own floor first (quick scale) so ratios stay same-run. */
async function ownBaseline(ctx: ScenarioContext): Promise<Fields> {
  ctx.log('measuring the baseline first (same run)');
  return baseline({ ...ctx, quick: true, overrides: {} });
}
