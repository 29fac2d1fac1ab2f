import type { Cluster, Redis } from 'ioredis';

/**
 * Who decides an inquiry when several nodes see it end at once (their timers and deadline sweeps):
 * the first to claim it. The others leave it to that node; resolve-once would keep a second
 * decision out anyway, but this saves a second model call.
 */
export interface DecisionClaims {
  /** True when this caller now owns the decision for `ttlMs`. */
  claim(inquiryId: string, ttlMs: number): Promise<boolean>;
}

/** Claims shared through Redis: `SET <prefix>decide:{<id>} NX PX` (the inquiry's hash slot). */
export class RedisDecisionClaims implements DecisionClaims {
  constructor(
    private readonly redis: Redis | Cluster,
    private readonly prefix = 'hitl:',
  ) {}

  async claim(inquiryId: string, ttlMs: number): Promise<boolean> {
    const reply = await this.redis.set(
      `${this.prefix}decide:{${inquiryId}}`,
      '1',
      'PX',
      Math.max(1, Math.ceil(ttlMs)),
      'NX',
    );
    return reply === 'OK';
  }
}
