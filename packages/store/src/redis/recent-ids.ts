/**
 * Ids noted lately, each with when (`performance.now()`), forgotten once older than `keepMs`.
 * Insertion order is time order, so forgetting walks from the oldest and stops at the first kept.
 */
export class RecentIds {
  private readonly at = new Map<string, number>();

  constructor(private readonly keepMs: number) {}

  add(id: string, when = performance.now()): void {
    this.forget(when);
    this.at.delete(id);
    this.at.set(id, when);
  }

  /** When `id` was noted (if still kept), and forget it. */
  take(id: string): number | undefined {
    this.forget(performance.now());
    const when = this.at.get(id);
    this.at.delete(id);
    return when;
  }

  /** True when `id` was noted at or after `time`. */
  since(id: string, time: number): boolean {
    const when = this.at.get(id);
    return when !== undefined && when >= time;
  }

  private forget(now: number): void {
    for (const [id, when] of this.at) {
      if (now - when <= this.keepMs) return;
      this.at.delete(id);
    }
  }
}
