import type { Inquiry } from '@hitl/protocol';
import type { WaitOptions } from './store.js';

/** Wakes one parked waiter: with the resolved inquiry, or with undefined on abort, deadline or close. */
type Wake = (inquiry: Inquiry | undefined) => void;

interface Parked {
  /** Settles once the waiter is woken, whatever woke it. */
  woken: Promise<Inquiry | undefined>;
  /** Removes the waiter, its abort listener and its timer; safe to call more than once. */
  dispose(): void;
}

/** setTimeout fires at once for delays past 2^31 - 1 ms; a wait that long is capped instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The parked `waitForResolution` calls of one store instance, keyed by inquiry id. */
export class Waiters {
  private readonly byId = new Map<string, Set<Wake>>();

  /** Registers a waiter before the caller reads state, so a resolution in between still wakes it. */
  park(inquiryId: string, options: WaitOptions, now: () => number): Parked {
    let wake: Wake = () => {};
    const woken = new Promise<Inquiry | undefined>((resolve) => {
      wake = resolve;
    });
    let set = this.byId.get(inquiryId);
    if (!set) {
      set = new Set();
      this.byId.set(inquiryId, set);
    }
    set.add(wake);
    const { signal, deadline } = options;
    const onAbort = () => wake(undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) wake(undefined);
    const timer =
      deadline === undefined
        ? undefined
        : setTimeout(() => wake(undefined), Math.min(MAX_TIMER_MS, Math.max(0, deadline - now())));
    const dispose = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      set.delete(wake);
      if (set.size === 0 && this.byId.get(inquiryId) === set) this.byId.delete(inquiryId);
    };
    return { woken, dispose };
  }

  /** Wakes every waiter of this inquiry with its resolved state. */
  wake(inquiry: Inquiry): void {
    for (const wake of this.byId.get(inquiry.inquiryId) ?? []) wake(inquiry);
  }

  /** Wakes every waiter without a resolution (they re-read state): used on close. */
  wakeAll(): void {
    for (const set of this.byId.values()) for (const wake of set) wake(undefined);
  }

  /** Whether someone is waiting on this inquiry. */
  has(inquiryId: string): boolean {
    return this.byId.has(inquiryId);
  }

  /** Ids of the inquiries someone is waiting on. */
  ids(): string[] {
    return [...this.byId.keys()];
  }
}

/**
 * The one `waitForResolution` algorithm every store shares: park first, then read, so a resolution
 * that lands between the two is never missed; on abort or deadline, read again and return that.
 */
export async function waitForResolution(
  waiters: Waiters,
  inquiryId: string,
  options: WaitOptions,
  now: () => number,
  read: (inquiryId: string) => Promise<Inquiry | null>,
): Promise<Inquiry | null> {
  const parked = waiters.park(inquiryId, options, now);
  try {
    const ended = await endedState(read, inquiryId);
    if (ended !== undefined) return ended;
    const resolved = await parked.woken;
    return resolved ?? (await read(inquiryId));
  } finally {
    parked.dispose();
  }
}

/**
 * What `read` finds if the inquiry has ended (or is missing: null); undefined while it is pending.
 * Its own frame, so the pending inquiry read is not kept alive while the waiter is parked.
 */
async function endedState(
  read: (inquiryId: string) => Promise<Inquiry | null>,
  inquiryId: string,
): Promise<Inquiry | null | undefined> {
  const current = await read(inquiryId);
  return current?.status === 'pending' ? undefined : current;
}

/** Tracks promises still running so `close()` can wait for them. */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  track<T>(promise: Promise<T>): Promise<T> {
    this.running.add(promise);
    const forget = () => this.running.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  async settle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }
}
