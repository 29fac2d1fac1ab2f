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
 * The shared limiter's Redis step: a fixed window per key, like the library's own script (SET NX EX,
 * INCRBY, PTTL every time) in one command fewer than half: INCRBY, an EXPIRE when the window starts,
 * and the PTTL only for a request over the budget (the remaining time is read only to refuse it).
 * KEYS[1] the key; ARGV: points to spend, window (s), budget, window (s). Returns {consumed, ms left}.
 */
export const INCR_TTL_LUA = `local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local windowMs = 1000 * tonumber(ARGV[2])
if consumed == tonumber(ARGV[1]) then
  redis.call('expire', KEYS[1], ARGV[2])
  return {consumed, windowMs}
end
if consumed <= tonumber(ARGV[3]) then
  return {consumed, windowMs}
end
local ttl = redis.call('pttl', KEYS[1])
if ttl < 0 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = windowMs
end
return {consumed, ttl}`;

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
    ? new RateLimiterRedis({
        ...options,
        storeClient: redis,
        insuranceLimiter: local,
        customIncrTtlLuaScript: INCR_TTL_LUA,
      })
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
