import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

/** Requests per minute per key (a token fingerprint); shared across nodes when Redis is given. */
export interface RateLimiter {
  consume(key: string): Promise<RateDecision>;
}

export function createRateLimiter(perMinute: number, redis?: Redis): RateLimiter {
  if (perMinute === 0) return { consume: async () => ({ ok: true }) };
  const options = { points: perMinute, duration: 60, keyPrefix: 'hitl:rate' };
  // Redis down must not take the doors with it: a per-node limit stands in until it is back.
  const local = new RateLimiterMemory(options);
  const shared = redis
    ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: local })
    : undefined;
  return {
    async consume(key) {
      const limiter = shared && redis?.status === 'ready' ? shared : local;
      try {
        await limiter.consume(key);
        return { ok: true };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { ok: false, retryAfterMs: rejection.msBeforeNext };
        throw rejection;
      }
    },
  };
}
