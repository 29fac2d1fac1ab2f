/** Reconnect pacing: exponential from `baseMs`, capped at `maxMs`, with jitter so devices spread out. */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** 0..1: how much of each delay may be randomised away (0.5 → 50%..100% of the delay). */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 10_000, jitter: 0.5 };

/** The delay before reconnect attempt `attempt` (0-based). `random` returns 0..1. */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number): number {
  const raw = Math.min(options.maxMs, options.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(raw * (1 - options.jitter * random()));
}
