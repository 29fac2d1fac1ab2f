import type { Clock } from './clock.js';
import type { PendingInquiry } from './pending.js';

export interface DeviceTimerDeps {
  clock: Clock;
  /** Whether a report can go out now (connected); a due timer waits for the next `track` if not. */
  canSend(): boolean;
  /** Reports the tier-1 deadline of one inquiry (`inquiry:timeout`). */
  send(inquiryId: string): void;
}

/**
 * Tier 1: one countdown per pending inquiry to its skew-corrected device deadline. Each inquiry is
 * reported at most once per device; one that falls due while offline is reported right after the next
 * sync, if it is still pending then.
 */
export class DeviceTimer {
  private readonly timers = new Map<string, { at: number; handle: unknown }>();
  private readonly fired = new Set<string>();

  constructor(private readonly deps: DeviceTimerDeps) {}

  /** Matches the countdowns to the pending list: new ones start, ended ones stop, moved ones restart. */
  track(inquiries: Iterable<PendingInquiry>): void {
    const live = new Set<string>();
    for (const inquiry of inquiries) {
      live.add(inquiry.inquiryId);
      this.schedule(inquiry.inquiryId, inquiry.localDeviceAt);
    }
    for (const id of [...this.timers.keys()]) if (!live.has(id)) this.cancel(id);
    for (const id of [...this.fired]) if (!live.has(id)) this.fired.delete(id);
  }

  /** Stops every countdown. */
  stop(): void {
    for (const id of [...this.timers.keys()]) this.cancel(id);
  }

  /** Whether this device already reported the inquiry's deadline. */
  hasFired(inquiryId: string): boolean {
    return this.fired.has(inquiryId);
  }

  private schedule(id: string, at: number): void {
    if (this.fired.has(id)) return;
    const current = this.timers.get(id);
    if (current?.at === at) return;
    if (current) this.cancel(id);
    const delay = Math.max(0, at - this.deps.clock.now());
    const handle = this.deps.clock.setTimeout(() => this.fire(id), delay);
    this.timers.set(id, { at, handle });
  }

  private cancel(id: string): void {
    const current = this.timers.get(id);
    if (current) this.deps.clock.clearTimeout(current.handle);
    this.timers.delete(id);
  }

  private fire(id: string): void {
    this.timers.delete(id);
    if (this.fired.has(id) || !this.deps.canSend()) return;
    this.fired.add(id);
    this.deps.send(id);
  }
}
