import { startRedisServer } from '@hitl/store/testing';
import { mergeHists, prefixed, summarize } from '../core/hist.js';
import type { Fields } from '../core/summary.js';
import { startWorker } from '../env/workers.js';
import type { BaselineParams, BaselineResult } from '../load/baseline.js';
import { faultFields, param, type ScenarioContext } from './context.js';

/**
 * The floors, in one run: Redis PUBLISH → message on a second connection, socket.io emit → ack,
 * and a Hono-held POST released by a socket.io event. Each server is its own process.
 */
export async function baseline(ctx: ScenarioContext): Promise<Fields> {
  const redis = await startRedisServer();
  ctx.cleanup.add(() => redis.stop());
  const server = startWorker<object>('baseline-server', {});
  ctx.cleanup.add(() => server.kill());
  const { url } = await server.next<{ url: string }>('listening');
  const params: BaselineParams = {
    redisUrl: redis.url,
    url,
    samples: param(ctx, 'samples', { quick: 600, full: 20_000 }),
    warmup: param(ctx, 'warmup', { quick: 200, full: 1000 }),
    open: param(ctx, 'open', { quick: 200, full: 1000 }),
  };
  ctx.log(`baseline: ${params.samples} samples each (one in flight), ${params.open} held requests`);
  const load = startWorker<BaselineResult>('baseline', params);
  ctx.cleanup.add(() => load.kill());
  const result = await load.result;
  server.signal('stop');
  await server.result.catch(() => undefined);
  const faults = faultFields(result.faults);
  return {
    ...prefixed('redis', summarize(mergeHists([result.redis]))),
    ...prefixed('sio', summarize(mergeHists([result.sio]))),
    ...prefixed('hono', summarize(mergeHists([result.hono]))),
    ...faults,
    ok: faults.faults === 0,
  };
}
