import type { Inquiry } from '@hitl/protocol';
import type { WaitOptions } from './store.js';

/** Wakes one parked wait: with the resolved inquiry, or with undefined on abort, deadline or close. */
type Wake = (inquiry: Inquiry | undefined) => void;

/** setTimeout fires at once for delays past 2^31 - 1 ms; a wait that long is capped instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The waits parked on one inquiry, and what they know of it. */
interface Watch {
  wakes: Wake[];
  /** The pending inquiry they know (see {@link Waiters.pendingOf}). */
  pending?: Inquiry;
}

/** The parked `waitForResolution` calls of one store instance, keyed by inquiry id. */
export class Waiters {
  private readonly byId = new Map<string, Watch>();
  /** `waitForResolution` calls not yet returned, and what waits for them all to return. */
  private running = 0;
  private idle: (() => void)[] = [];

  /** Parks a wait before its caller reads state, so a resolution in between still wakes it. */
  park(inquiryId: string, wake: Wake): void {
    const watch = this.byId.get(inquiryId);
    if (watch) watch.wakes.push(wake);
    else this.byId.set(inquiryId, { wakes: [wake] });
  }

  /** Removes a parked wait; the id is forgotten with its last one. */
  unpark(inquiryId: string, wake: Wake): void {
    const watch = this.byId.get(inquiryId);
    if (!watch) return;
    const at = watch.wakes.indexOf(wake);
    if (at >= 0) watch.wakes.splice(at, 1);
    if (watch.wakes.length === 0) this.byId.delete(inquiryId);
  }

  /**
   * The pending inquiry the waiters of this id know (the first a read found), for a store whose
   * resolution messages carry only what changed; forgotten with the last waiter.
   */
  pendingOf(inquiryId: string): Inquiry | undefined {
    return this.byId.get(inquiryId)?.pending;
  }

  /** Keeps `inquiry` (pending) as what this id's waiters know, unless they know it already. */
  knowPending(inquiry: Inquiry): void {
    const watch = this.byId.get(inquiry.inquiryId);
    if (watch) watch.pending ??= inquiry;
  }

  /** Wakes every waiter of this inquiry with its resolved state. */
  wake(inquiry: Inquiry): void {
    for (const wake of this.byId.get(inquiry.inquiryId)?.wakes ?? []) wake(inquiry);
  }

  /** Wakes every waiter without a resolution (they re-read state): used on close. */
  wakeAll(): void {
    for (const watch of this.byId.values()) for (const wake of watch.wakes) wake(undefined);
  }

  /** Resolves once every `waitForResolution` call has returned (at once when none is running). */
  settled(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** @internal {@link waitForResolution}'s count of the calls still running. */
  enter(): void {
    this.running += 1;
  }

  /** @internal */
  leave(): void {
    this.running -= 1;
    if (this.running > 0) return;
    const idle = this.idle;
    this.idle = [];
    for (const resolve of idle) resolve();
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
 * A store returns this function's promise as its own (its bookkeeping goes in `read` or in
 * {@link Waiters}), and {@link Waiters.settled} is how `close()` waits for every wait to return.
 */
export async function waitForResolution(
  waiters: Waiters,
  inquiryId: string,
  { signal, deadline }: WaitOptions,
  now: () => number,
  read: (inquiryId: string) => Promise<Inquiry | null>,
): Promise<Inquiry | null> {
  let wake!: Wake;
  const woken = new Promise<Inquiry | undefined>((resolve) => {
    wake = resolve;
  });
  const release = () => wake(undefined);
  waiters.enter();
  waiters.park(inquiryId, wake);
  signal?.addEventListener('abort', release, { once: true });
  if (signal?.aborted) release();
  const timer =
    deadline === undefined
      ? undefined
      : setTimeout(release, Math.min(MAX_TIMER_MS, Math.max(0, deadline - now())));
  try {
    const ended = await endedState(read, inquiryId);
    if (ended !== undefined) return ended;
    return (await woken) ?? (await read(inquiryId));
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', release);
    waiters.unpark(inquiryId, wake);
    waiters.leave();
  }
}

/**
 * What `read` finds if the inquiry has ended (or is missing: null); undefined while it is pending.
 * A function of its own so that the wait, suspended for as long as the call is held, does not keep
 * this read's copy of the inquiry beside the caller's (measured with the one-frame wait it is part
 * of: heap per held call 14.3 → 13.0 KB; bench/results/HISTORY.md, "RSS per held call, session 5").
 */
async function endedState(
  read: (inquiryId: string) => Promise<Inquiry | null>,
  inquiryId: string,
): Promise<Inquiry | null | undefined> {
  const current = await read(inquiryId);
  return current?.status === 'pending' ? undefined : current;
}
