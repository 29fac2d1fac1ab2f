import type { Clock } from '../src/core/ports.js';

/** A `Clock` whose time moves only when the test says so; due timers run in order as it moves. */
export class ManualClock implements Clock {
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  constructor(private time = 0) {}

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { at: this.time + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return timer;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t !== handle);
  }

  /** Timers not yet run. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, running each timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.clearTimeout(due);
      this.time = due.at;
      due.fn();
    }
    this.time = end;
  }
}
