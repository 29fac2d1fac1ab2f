/** The longest pause between two sweeps that found nothing due, as a multiple of the sweep interval... */
export const IDLE_SWEEP_FACTOR = 8;

/** ...and at most this long: an interval set long already (hundreds of nodes) is not stretched further. */
export const IDLE_SWEEP_MAX_MS = 4000;

/** The longest idle pause for a sweep interval: 8 × it, at most 4 s, never below the interval itself. */
export function idlePauseCapMs(sweepMs: number): number {
  return Math.max(sweepMs, Math.min(sweepMs * IDLE_SWEEP_FACTOR, IDLE_SWEEP_MAX_MS));
}

/** Something swept for due work: resolves with how many items were due. */
export interface Sweepable {
  sweep(): Promise<number>;
}

/**
 * One timer for every deadline sweep of the node (service timeouts, escalations), so an idle node
 * wakes once per round instead of once per kind. The round comes every `sweepMs` while sweeps find
 * due inquiries; each round that finds none doubles the pause, up to {@link idlePauseCapMs} (8 ×
 * `sweepMs`, at most 4 s, never below `sweepMs`: 4 s at the default 500 ms). Local timers still fire on time for the inquiries this node
 * created; the sweep only catches the rest (a node that died), which an idle pause makes that much
 * later.
 */
export class DeadlineSweeper {
  private timer: NodeJS.Timeout | undefined;
  private pauseMs: number;
  private stopped = true;

  constructor(
    private readonly sweeps: readonly Sweepable[],
    private readonly sweepMs: number,
  ) {
    this.pauseMs = sweepMs;
  }

  start(): void {
    this.stopped = false;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The pause before the next round (for tests and metrics). */
  get nextPauseMs(): number {
    return this.pauseMs;
  }

  /**
   * One round: every sweep at once (on Redis their reads leave in one write and their replies come
   * back in one read); the next pause depends on whether any found something due.
   */
  async round(): Promise<number> {
    const counts = await Promise.all(this.sweeps.map((sweep) => sweep.sweep()));
    const due = counts.reduce((a, b) => a + b, 0);
    this.pauseMs = due > 0 ? this.sweepMs : Math.min(this.pauseMs * 2, idlePauseCapMs(this.sweepMs));
    return due;
  }

  private arm(): void {
    this.timer = setTimeout(() => {
      void this.round().finally(() => {
        if (!this.stopped) this.arm();
      });
    }, this.pauseMs);
    this.timer.unref();
  }
}
