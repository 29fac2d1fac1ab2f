import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { type RateDecision, SharedBudget, type SharedBudgetOptions } from './shared-rate-limit.js';

export { INCR_TTL_LUA, type RateDecision } from './shared-rate-limit.js';

/**
 * Points per minute per key (a token fingerprint); shared across nodes when Redis is given. A point
 * is one unit of work: a REST request, or one JSON-RPC message (a batch of 100 spends 100).
 */
export interface RateLimiter {
  /** Spends `cost` points (default 1) at once; over the budget the whole request is refused (its points still count). */
  consume(key: string, cost?: number): Promise<RateDecision>;
  /** Sends the points not yet in Redis and stops the flush timer (a no-op without Redis). */
  close(): Promise<void>;
}

/**
 * A budget of `perMinute` points per key, in Redis under `keyPrefix` when `redis` is given (every
 * node spends from the same budget, decided locally while far from it: see {@link SharedBudget}),
 * in this process otherwise. `consume(key, 0)` spends nothing and says whether the key is already over.
 */
export function createRateLimiter(
  perMinute: number,
  redis?: Redis,
  keyPrefix = 'hitl:rate',
  options?: SharedBudgetOptions,
): RateLimiter {
  if (perMinute === 0) return { consume: async () => ({ ok: true }), close: async () => {} };
  // Redis down must not take the doors with it: a per-node limit stands in until it is back.
  const local = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix });
  const shared = redis ? new SharedBudget(redis, perMinute, keyPrefix, options) : undefined;
  return {
    async consume(key, cost = 1) {
      if (shared && redis?.status === 'ready') {
        try {
          return await shared.consume(key, cost);
        } catch {
          // The call failed mid-way (Redis went away): this request is decided per node.
        }
      }
      try {
        await local.consume(key, cost);
        return { ok: true };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) return { ok: false, retryAfterMs: rejection.msBeforeNext };
        throw rejection;
      }
    },
    close: async () => shared?.close(),
  };
}
