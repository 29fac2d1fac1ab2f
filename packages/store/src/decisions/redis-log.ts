import {
  type DecisionRecord,
  DecisionRecordSchema,
  type ListDecisionsQuery,
  type Page,
} from '@hitl/protocol';
import type { Cluster, Redis } from 'ioredis';
import { type DecisionLog, matches, type NewDecisionRecord, RECORD_ID } from './decision-log.js';

export interface RedisDecisionLogOptions {
  /** A client the caller owns (never closed here). */
  redis: Redis | Cluster;
  /** Key prefix; the stream is `<prefix>decisions`. Default `hitl:`. */
  prefix?: string;
  /** About how many records the stream keeps (`XADD MAXLEN ~`). */
  max: number;
}

/** Entries read per round trip while paging through the stream. */
const BATCH = 200;
/** Entries one list request reads at most; a sparse filter gets a short page and a cursor. */
const SCAN_CAP = 5000;
/** Stream ids carry the Redis server's clock; `since` reaches this far back to allow for skew. */
const SKEW_MS = 60_000;

type Entry = [id: string, fields: string[]];

/**
 * The shared audit log: a Redis Stream (`hitl:decisions`) trimmed to about `max` entries. Ids are
 * the stream ids, so paging is `XREVRANGE` from an exclusive cursor.
 */
export class RedisDecisionLog implements DecisionLog {
  private readonly key: string;

  constructor(private readonly options: RedisDecisionLogOptions) {
    this.key = `${options.prefix ?? 'hitl:'}decisions`;
  }

  async append(record: NewDecisionRecord): Promise<DecisionRecord> {
    const { redis, max } = this.options;
    const id = await redis.xadd(this.key, 'MAXLEN', '~', String(max), '*', 'r', JSON.stringify(record));
    return { id: id ?? '', ...record };
  }

  async get(id: string): Promise<DecisionRecord | null> {
    if (!RECORD_ID.test(id)) return null;
    const entries = (await this.options.redis.xrange(this.key, id, id)) as Entry[];
    return entries[0] ? decode(entries[0]) : null;
  }

  async list(query: ListDecisionsQuery): Promise<Page<DecisionRecord>> {
    const items: DecisionRecord[] = [];
    let end = query.cursor !== undefined ? `(${query.cursor}` : '+';
    const start = query.since !== undefined ? String(Math.max(0, query.since - SKEW_MS)) : '-';
    let scanned = 0;
    while (scanned < SCAN_CAP) {
      const entries = (await this.options.redis.xrevrange(this.key, end, start, 'COUNT', BATCH)) as Entry[];
      for (const entry of entries) {
        scanned++;
        const record = decode(entry);
        if (record && matches(record, query)) {
          items.push(record);
          if (items.length === query.limit) return { items, nextCursor: record.id };
        }
      }
      const last = entries[entries.length - 1];
      if (entries.length < BATCH || !last) return { items, nextCursor: null };
      end = `(${last[0]}`;
    }
    // Scanned enough for one request: hand back a cursor so the caller reads on.
    return { items, nextCursor: end.slice(1) };
  }

  async since(since: number, max: number): Promise<DecisionRecord[]> {
    const found: DecisionRecord[] = [];
    let end = '+';
    const start = String(Math.max(0, since - SKEW_MS));
    while (found.length < max) {
      const entries = (await this.options.redis.xrevrange(this.key, end, start, 'COUNT', BATCH)) as Entry[];
      for (const entry of entries) {
        const record = decode(entry);
        if (record && record.at >= since && found.length < max) found.push(record);
      }
      const last = entries[entries.length - 1];
      if (entries.length < BATCH || !last) break;
      end = `(${last[0]}`;
    }
    return found;
  }
}

/** A stream entry as a record; a malformed one (written by something else) is skipped. */
function decode([id, fields]: Entry): DecisionRecord | null {
  const index = fields.indexOf('r');
  const json = index >= 0 ? fields[index + 1] : undefined;
  if (json === undefined) return null;
  try {
    const parsed = DecisionRecordSchema.safeParse({ ...JSON.parse(json), id });
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
