import { startRedisServer } from '@hitl/store/testing';
import { startProfiledNodes } from '../env/probe-handle.js';
import type { ScenarioContext } from './context.js';

/** A fresh Redis and `count` nodes on it (CPU-profiled with `--set cpuprof=1`), stopped with the scenario. */
export async function nodesOnRedis(ctx: ScenarioContext, count = 2) {
  const redis = await startRedisServer();
  ctx.cleanup.add(() => redis.stop());
  const profiled = await startProfiledNodes(count, redis.url, ctx.overrides.cpuprof === 1, ctx.cleanup);
  return { redis, profiled, nodes: profiled.nodes };
}
