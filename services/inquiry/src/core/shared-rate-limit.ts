import type { Cluster, Redis } from 'ioredis';
import { type Clock, systemClock } from './ports.js';
import { defineRateScripts } from './rate-scripts.js';

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

const WINDOW_MS = 60_000;

/** Tuning of {@link SharedBudget}; the defaults are what the node uses. */
export interface SharedBudgetOptions {
  /**
   * How often pending points go out, one round trip for every key (ms). Not what bounds the
   * overshoot (a node's unconfirmed points never pass its slice), only how fresh `known` is.
   */
  flushMs?: number;
  /** Keys remembered at most; past it the oldest is dropped (its unsent points still go out). */
  maxKeys?: number;
  /** Times the windows (passed into the scripts, so every node's window ends when its clock says). */
  clock?: Clock;
}

/** What this node knows of one key's window. */
interface Entry {
  /** When the window ends (ms since epoch, on the clock; Redis's reply says). */
  end: number;
  /** The global count the last Redis reply gave. */
  known: number;
  /** Points accepted here, not yet sent. */
  pending: number;
  /** Points sent, reply not yet back. */
  sent: number;
  /** The send order of the reply `known` came from (replies may be taken in out of order). */
  seen: number;
}

type Reply = [count: number, end: number];

/**
 * One budget per key, shared by every node through Redis, decided locally while that is safe.
 *
 * A request is accepted without a Redis call only when this node has a live window for the key, its
 * own unconfirmed points (`sent + pending + cost`) fit in its slice (2% of the budget, rounded down:
 * a budget under 50, such as the wrong-pairing-code guard's, has none and is exact),
 * and `known + sent + pending + cost` stays at or below the safe line (90% of the budget). Anything
 * else is one script call that carries the pending points with the request, and is decided on the
 * count it returns (accepted iff ≤ budget; a refused request's points count too). A key known to be
 * over the budget is refused here until its window ends (the count only grows inside a window but for
 * a {@link refund}, which at worst leaves this node stricter than Redis).
 * Pending points go out every `flushMs` (default 1 s) in one script call over all keys (a Cluster: one
 * call per key), so a key's requests of that second cost Redis one HINCRBY together. The scripts
 * (`src/lua/rate-incr-*.lua`) time each window on the node's {@link Clock}, passed in as `now`.
 *
 * Worst case: a node whose `known` is stale can accept its slice of points the budget no longer
 * has, so the keys' owners may get at most (nodes × slice) points beyond the budget, once per stale
 * view, i.e. per flush interval; a node whose `known` has crossed the safe line sends every request
 * to Redis, so once every node has seen the line crossed the budget is exact. Points lost: a failed
 * flush or call drops what it carried (the node forgets the key, whose next request goes to Redis,
 * and the shared count is that much low: at most one slice per key per node); points of a window
 * that ended before they went out are dropped with it.
 */
export class SharedBudget {
  readonly slice: number;
  readonly safeLine: number;
  private readonly entries = new Map<string, Entry>();
  /** Unsent points of keys dropped for room, for the next flush. */
  private orphans: Array<[key: string, points: number]> = [];
  private timer: NodeJS.Timeout | undefined;
  /** Counts sends: Redis runs one key's calls in the order they were sent. */
  private sends = 0;
  private readonly flushMs: number;
  private readonly maxKeys: number;
  private readonly clock: Clock;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly budget: number,
    private readonly keyPrefix: string,
    options: SharedBudgetOptions = {},
  ) {
    this.slice = Math.floor(budget * 0.02);
    this.safeLine = Math.floor(budget * 0.9);
    this.flushMs = options.flushMs ?? 1_000;
    this.maxKeys = options.maxKeys ?? 10_000;
    this.clock = options.clock ?? systemClock;
    defineRateScripts(redis);
  }

  /** Decides `cost` points for `key`; rejects only when Redis failed (the points it carried are lost). */
  async consume(key: string, cost: number): Promise<RateDecision> {
    const now = this.clock.now();
    let entry = this.entries.get(key);
    if (entry && entry.end <= now) {
      this.entries.delete(key);
      entry = undefined;
    }
    if (entry) {
      const mine = entry.sent + entry.pending + cost;
      if (mine <= this.slice && entry.known + mine <= this.safeLine)
        return this.keep(entry, cost, { ok: true });
      if (entry.known > this.budget)
        return this.keep(entry, cost, { ok: false, retryAfterMs: entry.end - now });
    }
    const carried = entry?.pending ?? 0;
    if (entry) {
      entry.pending = 0;
      entry.sent += carried;
    }
    const order = ++this.sends;
    try {
      const [count, end] = await this.script(key, carried + cost);
      if (entry) entry.sent -= carried;
      this.learn(key, order, count, end);
      return count <= this.budget ? { ok: true } : { ok: false, retryAfterMs: end - this.clock.now() };
    } catch (error) {
      if (entry) entry.sent -= carried;
      this.forget(key, entry);
      throw error;
    }
  }

  /**
   * Gives back `points` spent on `key` in its current window (none open: nothing to give back).
   * Points not yet sent are taken back here; else Redis is asked. Rejects only when Redis failed.
   */
  async refund(key: string, points: number): Promise<void> {
    const entry = this.entries.get(key);
    if (entry && entry.pending >= points) {
      entry.pending -= points;
      return;
    }
    const order = ++this.sends;
    const [count, end] = await this.script(key, -points);
    if (this.entries.has(key)) this.learn(key, order, count, end);
  }

  /** Stops the flush timer and sends what is pending (best effort). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Sends every key's pending points in one round trip and learns the counts; never throws. */
  async flush(): Promise<void> {
    this.timer = undefined;
    const now = this.clock.now();
    const ready = this.redis.status === 'ready';
    const batch: Array<{ key: string; points: number; entry?: Entry }> = [];
    const order = ++this.sends;
    for (const [key, entry] of this.entries) {
      if (entry.end <= now) this.entries.delete(key);
      else if (entry.pending > 0 && ready) {
        batch.push({ key, points: entry.pending, entry });
        entry.sent += entry.pending;
        entry.pending = 0;
      }
    }
    if (!ready) {
      // Held until Redis is back (or their window ends); the per-node limiter decides meanwhile.
      if (this.orphans.length > 0 || [...this.entries.values()].some((e) => e.pending > 0)) this.schedule();
      return;
    }
    for (const [key, points] of this.orphans) batch.push({ key, points });
    this.orphans = [];
    if (batch.length === 0) return;
    const replies = await this.send(batch).catch((error: Error) => batch.map(() => error));
    batch.forEach(({ key, points, entry }, i) => {
      if (entry) entry.sent -= points;
      const reply = replies[i];
      if (reply instanceof Error || reply === undefined) this.forget(key, entry);
      else this.learn(key, order, reply[0], reply[1]);
    });
  }

  /** One key's step in Redis (`rate-incr-1.lua`): its count and its window's end after `points`. */
  private async script(key: string, points: number): Promise<Reply> {
    const [count, end] = await this.redis.hitlRateIncr(
      this.redisKey(key),
      this.clock.now(),
      points,
      WINDOW_MS,
    );
    return [Number(count), Number(end)];
  }

  private async send(batch: Array<{ key: string; points: number }>): Promise<Array<Reply | Error>> {
    if (this.redis.isCluster) {
      // A Cluster pipeline must stay within one slot: one call per key, each to its own node.
      return Promise.all(batch.map(({ key, points }) => this.script(key, points).catch((e: Error) => e)));
    }
    const flat = await this.redis.hitlRateIncrMany(
      batch.length,
      ...batch.map(({ key }) => this.redisKey(key)),
      this.clock.now(),
      WINDOW_MS,
      ...batch.map(({ points }) => points),
    );
    return batch.map((_, i) => [Number(flat[2 * i]), Number(flat[2 * i + 1])] as Reply);
  }

  private keep(entry: Entry, cost: number, decision: RateDecision): RateDecision {
    entry.pending += cost;
    if (cost > 0) this.schedule();
    return decision;
  }

  private schedule(): void {
    if (this.timer) return;
    // Node's own timer, not the clock's: it paces sends (and must not hold the process open), while
    // every window's end is read from the clock.
    this.timer = setTimeout(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Takes in the reply to send `order`: the key counts `count` in a window that ends at `end`. */
  private learn(key: string, order: number, count: number, end: number): void {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { end, known: count, pending: 0, sent: 0, seen: order };
      this.makeRoom();
      this.entries.set(key, entry);
      return;
    }
    // A flush's replies are taken in after its pipeline resolves, maybe after a later call's reply:
    // an older reply would set `known` back.
    if (order < entry.seen) return;
    entry.seen = order;
    entry.known = count;
    entry.end = end;
  }

  private forget(key: string, entry: Entry | undefined): void {
    if (entry && this.entries.get(key) === entry) this.entries.delete(key);
  }

  private makeRoom(): void {
    while (this.entries.size >= this.maxKeys) {
      const [oldest, entry] = this.entries.entries().next().value as [string, Entry];
      this.entries.delete(oldest);
      if (entry.pending > 0) {
        this.orphans.push([oldest, entry.pending]);
        this.schedule();
      }
    }
  }

  private redisKey(key: string): string {
    return `${this.keyPrefix}:${key}`;
  }
}
