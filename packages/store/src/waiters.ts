import type { Inquiry } from '@hitl/protocol';
import type { WaitOptions, WaitSignal } from './store.js';

/** Wakes one parked waiter: with the resolved inquiry, or with undefined on abort, deadline or close. */
type Wake = (inquiry: Inquiry | undefined) => void;

/** setTimeout fires at once for delays past 2^31 - 1 ms; a wait that long is capped instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The waiters of one inquiry (usually one: an array, lighter than a Set), and what they know of it. */
interface Watch {
  parked: Parked[];
  /** The pending inquiry they know (see {@link Waiters.pendingOf}). */
  pending?: Inquiry;
}

/**
 * One parked waiter. A held call keeps it for as long as it waits, so it is one object: it is its
 * signal's 'abort' listener itself (`handleEvent`) and its timer's argument, not three closures.
 */
class Parked {
  /** Settles once the waiter is woken, whatever woke it. */
  readonly woken: Promise<Inquiry | undefined>;
  /** Settles `woken` (later calls do nothing). */
  wake!: Wake;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly waiters: Waiters,
    private readonly inquiryId: string,
    private readonly watch: Watch,
    private readonly signal: WaitSignal | undefined,
  ) {
    this.woken = new Promise<Inquiry | undefined>((resolve) => {
      this.wake = resolve;
    });
  }

  /** Wakes it (without a resolution) at `deadline`. */
  wakeAt(deadline: number, now: number): void {
    this.timer = setTimeout(timeUp, Math.min(MAX_TIMER_MS, Math.max(0, deadline - now)), this);
  }

  /** The signal's 'abort'. */
  handleEvent(): void {
    this.wake(undefined);
  }

  /** Removes the waiter, its abort listener and its timer; safe to call more than once. */
  dispose(): void {
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this);
    const { parked } = this.watch;
    const at = parked.indexOf(this);
    if (at >= 0) parked.splice(at, 1);
    if (parked.length === 0) this.waiters.forget(this.inquiryId, this.watch);
  }
}

function timeUp(parked: Parked): void {
  parked.wake(undefined);
}

/** The parked `waitForResolution` calls of one store instance, keyed by inquiry id. */
export class Waiters {
  private readonly byId = new Map<string, Watch>();
  /** `waitForResolution` calls not yet returned, and what waits for them all to return. */
  private running = 0;
  private idle: (() => void)[] = [];

  /**
   * Registers a waiter before the caller reads state, so a resolution in between still wakes it.
   * The caller's copy of the pending inquiry (`options.pending`) is the one its watch keeps.
   */
  park(inquiryId: string, options: WaitOptions, now: () => number): Parked {
    let watch = this.byId.get(inquiryId);
    if (!watch) {
      watch = { parked: [] };
      this.byId.set(inquiryId, watch);
    }
    const { signal, deadline, pending } = options;
    const parked = new Parked(this, inquiryId, watch, signal);
    watch.parked.push(parked);
    if (pending?.inquiryId === inquiryId && pending.status === 'pending') watch.pending ??= pending;
    signal?.addEventListener('abort', parked, { once: true });
    if (signal?.aborted) parked.wake(undefined);
    if (deadline !== undefined) parked.wakeAt(deadline, now());
    return parked;
  }

  /** @internal A watch's last waiter has left. */
  forget(inquiryId: string, watch: Watch): void {
    if (this.byId.get(inquiryId) === watch) this.byId.delete(inquiryId);
  }

  /**
   * The pending inquiry the waiters of this id know (the first a caller passed or a read found), for
   * a store whose resolution messages carry only what changed; forgotten with the last waiter.
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
    for (const parked of this.byId.get(inquiry.inquiryId)?.parked ?? []) parked.wake(inquiry);
  }

  /** Wakes every waiter without a resolution (they re-read state): used on close. */
  wakeAll(): void {
    for (const watch of this.byId.values()) for (const parked of watch.parked) parked.wake(undefined);
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
 * One suspended frame per wait (a held call keeps it): a store's own bookkeeping goes in `read` or
 * in {@link Waiters}, not in a wrapping async function, and {@link Waiters.settled} is how `close()`
 * waits for every wait to return.
 */
export async function waitForResolution(
  waiters: Waiters,
  inquiryId: string,
  options: WaitOptions,
  now: () => number,
  read: (inquiryId: string) => Promise<Inquiry | null>,
): Promise<Inquiry | null> {
  waiters.enter();
  const parked = waiters.park(inquiryId, options, now);
  try {
    const ended = await endedState(read, inquiryId);
    if (ended !== undefined) return ended;
    const resolved = await parked.woken;
    return resolved ?? (await read(inquiryId));
  } finally {
    parked.dispose();
    waiters.leave();
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
