import type { Inquiry } from '@hitl/protocol';

/** Time source and timers; tests pass a fake one to move time by hand. */
export interface Clock {
  now(): number;
  /** Calls `fn` once `ms` have passed on this clock; the handle is for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as NodeJS.Timeout | undefined),
};

/**
 * Resolves once `ms` have passed on `clock`, or at once when `signal` aborts (the timer is cleared).
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clock.clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Waits for `work` to settle, but no longer than `ms` on `clock`; the timer is cleared either way. */
export async function within(clock: Clock, ms: number, work: Promise<unknown>): Promise<void> {
  const settled = new AbortController();
  const done = work.then(
    () => settled.abort(),
    () => settled.abort(),
  );
  await Promise.race([done, sleep(clock, ms, settled.signal)]);
}

/** Hears of inquiries this node created or resolved (device push, local timers). */
export interface InquiryEvents {
  created(inquiry: Inquiry): void;
  resolved(inquiry: Inquiry): void;
  /** A pending inquiry changed for its devices (e.g. a suggested answer arrived, a vote was counted). */
  updated?(inquiry: Inquiry): void;
  /** A pending inquiry escalated: `inquiry.escalation.users` were added to who is asked. */
  escalated?(inquiry: Inquiry): void;
}

/** What the core reports to metrics. */
export interface InquiryMetrics {
  created(): void;
  resolved(inquiry: Inquiry): void;
}
