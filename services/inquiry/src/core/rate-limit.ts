import type { Cluster, Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { type RateDecision, SharedBudget, type SharedBudgetOptions } from './shared-rate-limit.js';

export type { RateDecision } from './shared-rate-limit.js';

/**
 * Points per minute per key (a token fingerprint); shared across nodes when Redis is given. A point
 * is one unit of work: a REST request, or one JSON-RPC message (a batch of 100 spends 100).
 */
export interface RateLimiter {
  /** Spends `cost` points (default 1) at once; over the budget the whole request is refused (its points still count). */
  consume(key: string, cost?: number): Promise<RateDecision>;
  /**
   * Gives back `points` (default 1) spent in the key's current window: a spend made up front, before
   * the work it guards, for work that turned out not to count (a pairing code that was right).
   */
  refund(key: string, points?: number): Promise<void>;
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
  redis?: Redis | Cluster,
  keyPrefix = 'hitl:rate',
  options?: SharedBudgetOptions,
): RateLimiter {
  if (perMinute === 0)
    return { consume: async () => ({ ok: true }), refund: async () => {}, close: async () => {} };
  // Redis down must not take the doors with it: a per-node limit stands in until it is back.
  const local = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix });
  const shared = redis ? new SharedBudget(redis, perMinute, keyPrefix, options) : undefined;
  const sharedUp = () => shared !== undefined && redis?.status === 'ready';
  return {
    async consume(key, cost = 1) {
      if (shared && sharedUp()) {
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
    async refund(key, points = 1) {
      if (shared && sharedUp()) {
        // Best effort: a refund lost with Redis leaves the key stricter, never looser.
        await shared.refund(key, points).catch(() => {});
        return;
      }
      // Only what this window counted here: a key this node never spent on stays unknown.
      if (await local.get(key)) await local.reward(key, points);
    },
    close: async () => shared?.close(),
  };
}
