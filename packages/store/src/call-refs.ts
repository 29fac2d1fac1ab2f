/** How often, at most, expired call references are looked for (store clock, ms). */
const PRUNE_EVERY_MS = 1000;

/**
 * The call references of a single-process store (memory, SQLite): which inquiry a held call waits
 * on, for as long as the call may live. They end with the process, as the calls they name do.
 * Expired ones are dropped at most once a second, not on every call: a scan per held call would
 * cost O(held) on each create (about 20 µs at 1,000 held, 0.4 ms at 19,000).
 */
export class CallRefs {
  private readonly byKey = new Map<string, { inquiryId: string; expiresAt: number }>();
  private nextPruneAt = 0;

  constructor(private readonly now: () => number) {}

  remember(callKey: string, inquiryId: string, ttlMs: number): void {
    const now = this.now();
    if (now >= this.nextPruneAt) {
      this.nextPruneAt = now + PRUNE_EVERY_MS;
      for (const [key, call] of this.byKey) if (call.expiresAt <= now) this.byKey.delete(key);
    }
    this.byKey.set(callKey, { inquiryId, expiresAt: now + ttlMs });
  }

  recall(callKey: string): string | null {
    const call = this.byKey.get(callKey);
    return call && call.expiresAt > this.now() ? call.inquiryId : null;
  }

  /** How many are kept (expired ones included until the next prune). */
  get size(): number {
    return this.byKey.size;
  }
}
