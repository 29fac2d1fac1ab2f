import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Points per minute per key (a token fingerprint); shared across nodes when Redis is given. A point
 * is one unit of work: a REST request, or one JSON-RPC message (a batch of 100 spends 100).
 */
export interface RateLimiter {
  /** Spends `cost` points (default 1) at once; over the budget the whole request is refused (its points still count). */
  consume(key: string, cost?: number): Promise<RateDecision>;
}

/**
 * A budget of `perMinute` points per key, in Redis under `keyPrefix` when `redis` is given (every
 * node spends from the same budget), in this process otherwise. `consume(key, 0)` spends nothing
 * and says whether the key is already over.
 */
export function createRateLimiter(perMinute: number, redis?: Redis, keyPrefix = 'hitl:rate'): RateLimiter {
  if (perMinute === 0) return { consume: async () => ({ ok: true }) };
  const options = { points: perMinute, duration: 60, keyPrefix };
  // Redis down must not take the doors with it: a per-node limit stands in until it is back.
  const local = new RateLimiterMemory(options);
  const shared = redis
    ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: local })
    : undefined;
  return {
    async consume(key, cost = 1) {
      const limiter = shared && redis?.status === 'ready' ? shared : local;
      try {
        await limiter.consume(key, cost);
        return { ok: true };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { ok: false, retryAfterMs: rejection.msBeforeNext };
        throw rejection;
      }
    },
  };
}
