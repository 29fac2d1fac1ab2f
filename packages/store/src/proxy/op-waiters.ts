import type { Operation, ProxyStore } from './proxy-store.js';

/** How often a waiter re-reads state even without a wake-up (lapsed leases, lost pub/sub messages). */
export const WAIT_POLL_MS = 500;

/** Wake-ups for callers waiting on an operation; the store's state stays the truth. */
export class OperationWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** `pollMs`: how often a waiter re-reads without a wake-up (tests lengthen it to prove the wake-up). */
  constructor(private readonly pollMs = WAIT_POLL_MS) {}

  static id(userId: string, key: string): string {
    return JSON.stringify([userId, key]);
  }

  notify(id: string): void {
    for (const wake of this.waiting.get(id) ?? []) wake();
  }

  /** Waits on the operation `key` of `userId` in `store`, as {@link wait} does. */
  waitFor(
    store: Pick<ProxyStore, 'getOperation'>,
    userId: string,
    key: string,
    signal: AbortSignal,
    settled?: (op: Operation) => boolean,
  ): Promise<Operation | null> {
    return this.wait(
      OperationWaiters.id(userId, key),
      () => store.getOperation(userId, key),
      signal,
      settled,
    );
  }

  /**
   * Register first, then read: a finish that lands in between still wakes us. Re-reads on every
   * wake-up and every `pollMs` until `read` gives a done operation (or one `settled`
   * accepts) or null.
   */
  async wait(
    id: string,
    read: () => Promise<Operation | null>,
    signal: AbortSignal,
    settled: (op: Operation) => boolean = () => false,
  ): Promise<Operation | null> {
    let wake: () => void = () => undefined;
    const set = this.waiting.get(id) ?? new Set();
    this.waiting.set(id, set);
    const entry = () => wake();
    set.add(entry);
    try {
      for (;;) {
        signal.throwIfAborted();
        const woken = new Promise<void>((resolve) => {
          wake = resolve;
        });
        const op = await read();
        if (op === null || op.state === 'done' || settled(op)) return op;
        await pause(woken, this.pollMs, signal);
      }
    } finally {
      set.delete(entry);
      if (set.size === 0) this.waiting.delete(id);
    }
  }
}

/** Resolves on `woken` or after `ms`; rejects when `signal` aborts. Leaves no timer or listener behind. */
function pause(woken: Promise<void>, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (error?: unknown) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onAbort = () => done(signal.reason ?? new Error('aborted'));
    const timer = setTimeout(() => done(), ms);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    void woken.then(() => done());
  });
}
