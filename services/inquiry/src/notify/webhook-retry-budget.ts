/** The bytes of waiting webhook retries one node may hold (`HITL_WEBHOOK_RETRY_BYTES*`). */
export interface RetryCaps {
  /** All retries to one webhook URL. */
  perWebhookBytes: number;
  /** All retries of one user's inquiries (the asking token's user), across webhooks. */
  perUserBytes: number;
}

/** One delivery waiting to be retried, and the body it keeps in memory meanwhile. */
export interface HeldRetry {
  id: string;
  /** The webhook's URL. */
  hook: string;
  userId: string;
  /** UTF-8 bytes of the body kept for the retries. */
  bytes: number;
}

/** What {@link RetryBudget.admit} decided: the entry held or not, and the older ones dropped for it. */
export interface Admission<T> {
  held: boolean;
  dropped: T[];
}

/**
 * The memory bound of webhook retries (issue 34, finding 6): a retry keeps its body until it is
 * delivered or given up, so one token creating big inquiries while a target is down could grow a
 * node by hundreds of MB. Here the bodies held are counted per webhook and per user; a new retry that
 * would go over either cap drops the oldest droppable retries of that webhook or user (the caller
 * records them failed); one that is alone over a cap, or that only retries under way could make room
 * for, is not held itself. Pure bookkeeping: no timers, no I/O.
 */
export class RetryBudget<T extends HeldRetry> {
  /** Oldest first: a delivery keeps its place from its first failure to its end. */
  private readonly held = new Map<string, T>();
  private readonly byHook = new Map<string, number>();
  private readonly byUser = new Map<string, number>();
  private total = 0;

  constructor(private readonly caps: RetryCaps) {}

  /** Bytes held in all. */
  get bytes(): number {
    return this.total;
  }

  /** Bytes held for one webhook URL. */
  hookBytes(hook: string): number {
    return this.byHook.get(hook) ?? 0;
  }

  /** Bytes held for one user. */
  userBytes(userId: string): number {
    return this.byUser.get(userId) ?? 0;
  }

  /** The held retry of this delivery, if any. */
  get(id: string): T | undefined {
    return this.held.get(id);
  }

  /** Which cap `entry` alone is over, or undefined. */
  private alone(entry: T): string | undefined {
    if (entry.bytes > this.caps.perWebhookBytes) return 'webhook';
    if (entry.bytes > this.caps.perUserBytes) return 'user';
    return undefined;
  }

  /**
   * Holds `entry` when it fits, dropping the oldest held retries it shares a webhook or a user with
   * (only those `droppable` says may go: not one whose attempt is under way) until it does.
   */
  admit(entry: T, droppable: (held: T) => boolean): Admission<T> {
    if (this.held.has(entry.id)) return { held: true, dropped: [] };
    if (this.alone(entry)) return { held: false, dropped: [] };
    let hookOver = this.hookBytes(entry.hook) + entry.bytes - this.caps.perWebhookBytes;
    let userOver = this.userBytes(entry.userId) + entry.bytes - this.caps.perUserBytes;
    const victims: T[] = [];
    for (const old of this.held.values()) {
      if (hookOver <= 0 && userOver <= 0) break;
      const helpsHook = hookOver > 0 && old.hook === entry.hook;
      const helpsUser = userOver > 0 && old.userId === entry.userId;
      if (!(helpsHook || helpsUser) || !droppable(old)) continue;
      victims.push(old);
      if (old.hook === entry.hook) hookOver -= old.bytes;
      if (old.userId === entry.userId) userOver -= old.bytes;
    }
    // Not enough could go (the rest is under way): drop nothing in vain, and do not hold this one.
    if (hookOver > 0 || userOver > 0) return { held: false, dropped: [] };
    for (const victim of victims) this.release(victim.id);
    this.held.set(entry.id, entry);
    this.add(entry, entry.bytes);
    return { held: true, dropped: victims };
  }

  /** Forgets a retry (delivered, given up, or dropped). */
  release(id: string): void {
    const entry = this.held.get(id);
    if (!entry) return;
    this.held.delete(id);
    this.add(entry, -entry.bytes);
  }

  private add(entry: T, delta: number): void {
    this.total += delta;
    const hook = this.hookBytes(entry.hook) + delta;
    const user = this.userBytes(entry.userId) + delta;
    if (hook > 0) this.byHook.set(entry.hook, hook);
    else this.byHook.delete(entry.hook);
    if (user > 0) this.byUser.set(entry.userId, user);
    else this.byUser.delete(entry.userId);
  }
}
