import type { Delivery, DeliveryChannel } from '@hitl/protocol';
import type { Redis } from 'ioredis';
import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase } from '../sqlite/state-database.js';

export interface DeliveryPage {
  items: Delivery[];
  nextCursor: string | null;
}

/** Where deliveries are kept for ops: the node's store kind (memory, the SQLite file, or Redis). */
export interface DeliveryLog {
  /** Writes the delivery as it is now (insert or replace by id). */
  save(delivery: Delivery): Promise<void>;
  /** Newest first; `cursor` is the `nextCursor` of the page before. */
  list(query: DeliveryQuery): Promise<DeliveryPage>;
}

export interface DeliveryQuery {
  limit: number;
  cursor?: string;
  inquiryId?: string;
  channel?: DeliveryChannel;
}

/** Whether a delivery passes the query's filters (the cursor aside). */
function matches(d: Delivery, query: DeliveryQuery): boolean {
  return (
    (!query.inquiryId || d.inquiryId === query.inquiryId) && (!query.channel || d.channel === query.channel)
  );
}

/** Cursors are `<createdAt>:<id>`: stable while new deliveries arrive. */
const cursorOf = (d: Delivery) => `${d.createdAt}:${d.id}`;
const before = (d: Delivery, cursor: string | undefined) => !cursor || cursorOf(d) < cursor;

function page(sorted: Delivery[], limit: number): DeliveryPage {
  const items = sorted.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: sorted.length > limit && last ? cursorOf(last) : null };
}

const newestFirst = (a: Delivery, b: Delivery) => (cursorOf(a) < cursorOf(b) ? 1 : -1);

/** The volatile log: the newest `max` deliveries of this process. */
export class MemoryDeliveryLog implements DeliveryLog {
  private readonly byId = new Map<string, Delivery>();

  constructor(private readonly max = 10_000) {}

  async save(delivery: Delivery): Promise<void> {
    this.byId.delete(delivery.id);
    this.byId.set(delivery.id, structuredClone(delivery));
    while (this.byId.size > this.max) {
      const oldest = this.byId.keys().next();
      if (oldest.done) break;
      this.byId.delete(oldest.value);
    }
  }

  async list(query: DeliveryQuery): Promise<DeliveryPage> {
    const matching = [...this.byId.values()].filter((d) => before(d, query.cursor) && matches(d, query));
    return page(matching.sort(newestFirst), query.limit);
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id         TEXT PRIMARY KEY,
  sort_key   TEXT NOT NULL,
  inquiry_id TEXT NOT NULL,
  channel    TEXT NOT NULL,
  body       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_sort ON webhook_deliveries (sort_key);
`;

/** The embedded node's log: a table in its state file, trimmed to about `max` rows. */
export class SqliteDeliveryLog implements DeliveryLog {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly max = 10_000,
  ) {
    migrate(db, 'webhook_deliveries', [{ version: 1, up: SCHEMA }]);
  }

  async save(delivery: Delivery): Promise<void> {
    this.db
      .prepare(
        'INSERT OR REPLACE INTO webhook_deliveries (id, sort_key, inquiry_id, channel, body) VALUES (?, ?, ?, ?, ?)',
      )
      .run(delivery.id, cursorOf(delivery), delivery.inquiryId, delivery.channel, JSON.stringify(delivery));
    if (delivery.attempts.length === 0) {
      this.db
        .prepare(
          'DELETE FROM webhook_deliveries WHERE sort_key < (SELECT sort_key FROM webhook_deliveries ORDER BY sort_key DESC LIMIT 1 OFFSET ?)',
        )
        .run(this.max);
    }
  }

  async list(query: DeliveryQuery): Promise<DeliveryPage> {
    const where = ['sort_key < ?'];
    const args: (string | number)[] = [query.cursor ?? '\uffff'];
    if (query.inquiryId) {
      where.push('inquiry_id = ?');
      args.push(query.inquiryId);
    }
    if (query.channel) {
      where.push('channel = ?');
      args.push(query.channel);
    }
    const rows = this.db
      .prepare(
        `SELECT body FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY sort_key DESC LIMIT ?`,
      )
      .all(...args, query.limit + 1) as { body: string }[];
    return page(
      rows.map((r) => JSON.parse(r.body) as Delivery),
      query.limit,
    );
  }
}

/** The cluster's log in Redis: one key per delivery (expiring) and an index sorted by time. */
export class RedisDeliveryLog implements DeliveryLog {
  private readonly index: string;

  constructor(
    private readonly redis: Redis,
    private readonly retentionMs: number,
    private readonly prefix = 'hitl:',
  ) {
    this.index = `${prefix}webhook:deliveries`;
  }

  private key(id: string): string {
    return `${this.prefix}webhook:delivery:${id}`;
  }

  async save(delivery: Delivery): Promise<void> {
    await this.redis
      .multi()
      .set(this.key(delivery.id), JSON.stringify(delivery), 'PX', this.retentionMs)
      .zadd(this.index, delivery.createdAt, delivery.id)
      .zremrangebyscore(this.index, '-inf', Date.now() - this.retentionMs)
      .exec();
  }

  async list(query: DeliveryQuery): Promise<DeliveryPage> {
    const items: Delivery[] = [];
    let max: string = query.cursor?.split(':')[0] ?? '+inf';
    // Reads in batches until the page is full (the inquiry filter may skip many).
    for (let round = 0; round < 20 && items.length <= query.limit; round++) {
      const ids = await this.redis.zrevrangebyscore(this.index, max, '-inf', 'LIMIT', 0, 200);
      if (ids.length === 0) break;
      const bodies = await this.redis.mget(ids.map((id) => this.key(id)));
      for (const body of bodies) {
        if (!body) continue;
        const delivery = JSON.parse(body) as Delivery;
        if (before(delivery, query.cursor) && matches(delivery, query)) {
          if (!items.some((d) => d.id === delivery.id)) items.push(delivery);
        }
      }
      const lastScore = bodies.length
        ? Number(await this.redis.zscore(this.index, ids.at(-1) ?? ''))
        : Number.NaN;
      if (ids.length < 200 || Number.isNaN(lastScore)) break;
      max = `(${lastScore}`;
    }
    return page(items.sort(newestFirst), query.limit);
  }
}
