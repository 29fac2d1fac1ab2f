import type { Redis } from 'ioredis';

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * The shared limiter's Redis step: a fixed window per key, like rate-limiter-flexible's own script
 * (SET NX EX, INCRBY, PTTL every time) in one command fewer than half: INCRBY, an EXPIRE when the
 * window starts (never pushed back), and the PTTL only for a count over the budget.
 * KEYS[1] the key; ARGV: points to add, window (s), budget. Returns {count, ms left}; under the
 * budget "ms left" is the whole window when this call started it, else only an upper bound.
 */
export const INCR_TTL_LUA = `local consumed = redis.call('incrby', KEYS[1], ARGV[1])
local windowMs = 1000 * tonumber(ARGV[2])
if consumed == tonumber(ARGV[1]) then
  redis.call('expire', KEYS[1], ARGV[2])
  return {consumed, windowMs}
end
if consumed <= tonumber(ARGV[3]) then
  return {consumed, windowMs}
end
local ttl = redis.call('pttl', KEYS[1])
if ttl < 0 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = windowMs
end
return {consumed, ttl}`;

/**
 * {@link INCR_TTL_LUA} for several keys in one call (a flush on one Redis: one command sent, one
 * INCRBY run per key). KEYS: the keys; ARGV: window (s), budget, then the points per key in KEYS'
 * order. Returns {count, ms left} per key, flattened.
 */
export const INCR_TTL_MANY_LUA = `local windowS, budget = ARGV[1], tonumber(ARGV[2])
local windowMs = 1000 * tonumber(windowS)
local replies = {}
for i, key in ipairs(KEYS) do
  local points = tonumber(ARGV[i + 2])
  local consumed = redis.call('incrby', key, points)
  local ttl = windowMs
  if consumed == points then
    redis.call('expire', key, windowS)
  elseif consumed > budget then
    ttl = redis.call('pttl', key)
    if ttl < 0 then
      redis.call('expire', key, windowS)
      ttl = windowMs
    end
  end
  replies[#replies + 1] = consumed
  replies[#replies + 1] = ttl
end
return replies`;

const WINDOW_S = 60;
const COMMAND = 'hitlRateIncr';
const COMMAND_MANY = 'hitlRateIncrMany';

/** Tuning of {@link SharedBudget}; the defaults are what the node uses. */
export interface SharedBudgetOptions {
  /**
   * How often pending points go out, one round trip for every key (ms). Not what bounds the
   * overshoot (a node's unconfirmed points never pass its slice), only how fresh `known` is.
   */
  flushMs?: number;
  /** Keys remembered at most; past it the oldest is dropped (its unsent points still go out). */
  maxKeys?: number;
}

/** What this node knows of one key's window. */
interface Entry {
  /** When the window ends (ms since epoch; never earlier than Redis's own expiry). */
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

type Reply = [count: number, msLeft: number];
type ScriptCall = (key: string, points: number, windowS: number, budget: number) => Promise<Reply>;
type WithScript = {
  [COMMAND]: ScriptCall;
  [COMMAND_MANY]: (keyCount: number, ...keysThenArgs: (string | number)[]) => Promise<number[]>;
};

/**
 * One budget per key, shared by every node through Redis, decided locally while that is safe.
 *
 * A request is accepted without a Redis call only when this node has a live window for the key, its
 * own unconfirmed points (`sent + pending + cost`) fit in its slice (2% of the budget, rounded down:
 * a budget under 50, such as the wrong-pairing-code guard's, has none and is exact),
 * and `known + sent + pending + cost` stays at or below the safe line (90% of the budget). Anything
 * else is one script call that carries the pending points with the request, and is decided on the
 * count it returns (accepted iff ≤ budget; a refused request's points count too). A key known to be
 * over the budget is refused here until its window ends (the count only grows inside a window).
 * Pending points go out every `flushMs` (default 1 s) in one script call over all keys (a Cluster: one
 * call per key), so a key's requests of that second cost Redis one INCRBY together.
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
  private readonly script: ScriptCall;
  private readonly client: WithScript;

  constructor(
    private readonly redis: Redis,
    private readonly budget: number,
    private readonly keyPrefix: string,
    options: SharedBudgetOptions = {},
  ) {
    this.slice = Math.floor(budget * 0.02);
    this.safeLine = Math.floor(budget * 0.9);
    this.flushMs = options.flushMs ?? 1_000;
    this.maxKeys = options.maxKeys ?? 10_000;
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: INCR_TTL_LUA });
    if (!(COMMAND_MANY in redis)) redis.defineCommand(COMMAND_MANY, { lua: INCR_TTL_MANY_LUA });
    this.client = redis as unknown as WithScript;
    const client = this.client;
    this.script = (...args) => client[COMMAND](...args);
  }

  /** Decides `cost` points for `key`; rejects only when Redis failed (the points it carried are lost). */
  async consume(key: string, cost: number): Promise<RateDecision> {
    const now = Date.now();
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
      const [count, msLeft] = await this.script(this.redisKey(key), carried + cost, WINDOW_S, this.budget);
      if (entry) entry.sent -= carried;
      this.learn(key, order, carried + cost, count, msLeft);
      return count <= this.budget ? { ok: true } : { ok: false, retryAfterMs: msLeft };
    } catch (error) {
      if (entry) entry.sent -= carried;
      this.forget(key, entry);
      throw error;
    }
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
    const now = Date.now();
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
      else this.learn(key, order, points, reply[0], reply[1]);
    });
  }

  private async send(batch: Array<{ key: string; points: number }>): Promise<Array<Reply | Error>> {
    const call = (key: string, points: number) =>
      [this.redisKey(key), points, WINDOW_S, this.budget] as const;
    if (this.redis.isCluster) {
      // A Cluster pipeline must stay within one slot: one call per key, each to its own node.
      return Promise.all(
        batch.map(({ key, points }) => this.script(...call(key, points)).catch((e: Error) => e)),
      );
    }
    const flat = await this.client[COMMAND_MANY](
      batch.length,
      ...batch.map(({ key }) => this.redisKey(key)),
      WINDOW_S,
      this.budget,
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
    this.timer = setTimeout(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Takes in the reply to send `order`: `points` added, the key counts `count`, `msLeft` before its window ends. */
  private learn(key: string, order: number, points: number, count: number, msLeft: number): void {
    const now = Date.now();
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { end: now + msLeft, known: count, pending: 0, sent: 0, seen: order };
      this.makeRoom();
      this.entries.set(key, entry);
      return;
    }
    // A flush's replies are taken in after its pipeline resolves, maybe after a later call's reply:
    // an older reply would set `known` back.
    if (order < entry.seen) return;
    entry.seen = order;
    entry.known = count;
    // The exact end is known when this reply started the window or read the PTTL (over the budget).
    if (count === points || count > this.budget) entry.end = now + msLeft;
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
