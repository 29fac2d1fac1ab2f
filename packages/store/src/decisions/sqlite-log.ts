import {
  type DecisionRecord,
  DecisionRecordSchema,
  type ListDecisionsQuery,
  type Page,
} from '@hitl/protocol';
import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase, SqliteStatement } from '../sqlite/state-database.js';
import { type DecisionLog, type NewDecisionRecord, RECORD_ID } from './decision-log.js';

export interface SqliteDecisionLogOptions {
  /** The node's open state file (owned and closed by the caller). */
  db: SqliteDatabase;
  /** About how many records the table keeps; the oldest go once it is a tenth over. */
  max: number;
  /** The clock for record ids (epoch ms); defaults to `Date.now`. */
  now?: () => number;
}

/** The columns the filters use sit beside the record's JSON. Ids are `<ms>-<seq>`, like the other logs. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS decisions (
  ms       INTEGER NOT NULL,
  seq      INTEGER NOT NULL,
  at       INTEGER NOT NULL,
  user_id  TEXT NOT NULL,
  outcome  TEXT NOT NULL,
  strategy TEXT,
  body     TEXT NOT NULL,
  PRIMARY KEY (ms, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS decisions_by_at ON decisions (at);
`;

/** Rows one list request looks at most; a sparse filter gets a short page and a cursor to read on. */
const SCAN_CAP = 5000;

/**
 * The embedded node's durable audit log: a table in the node's SQLite state file, so the log
 * survives restarts. Each append is committed before it returns: the node appends right after a
 * resolve and before the device's ack, so every acknowledged answer has its record after a kill -9
 * (a deferred, batched write lost them: seen in restart-durable).
 */
export class SqliteDecisionLog implements DecisionLog {
  private readonly db: SqliteDatabase;
  private readonly insert: SqliteStatement;
  private lastMs = 0;
  private seq = 0;
  private count: number;

  constructor(private readonly options: SqliteDecisionLogOptions) {
    this.db = options.db;
    migrate(this.db, 'decisions', [{ version: 1, up: SCHEMA }]);
    this.insert = this.db.prepare(
      'INSERT INTO decisions (ms, seq, at, user_id, outcome, strategy, body) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const top = this.db.prepare('SELECT ms, seq FROM decisions ORDER BY ms DESC, seq DESC LIMIT 1').get() as
      | { ms: number; seq: number }
      | undefined;
    if (top) {
      this.lastMs = Number(top.ms);
      this.seq = Number(top.seq);
    }
    this.count = Number((this.db.prepare('SELECT count(*) AS n FROM decisions').get() as { n: number }).n);
  }

  async append(record: NewDecisionRecord): Promise<DecisionRecord> {
    const ms = Math.max((this.options.now ?? Date.now)(), this.lastMs);
    this.seq = ms === this.lastMs ? this.seq + 1 : 0;
    this.lastMs = ms;
    this.insert.run(
      ms,
      this.seq,
      record.at,
      record.userId,
      record.outcome,
      record.strategy ?? null,
      JSON.stringify(record),
    );
    this.count++;
    if (this.count > this.options.max + Math.ceil(this.options.max / 10)) this.count = this.trim(this.count);
    return { id: `${ms}-${this.seq}`, ...record };
  }

  async get(id: string): Promise<DecisionRecord | null> {
    if (!RECORD_ID.test(id)) return null;
    const [ms, seq] = id.split('-').map(Number);
    return decode(
      this.db.prepare('SELECT ms, seq, body FROM decisions WHERE ms = ? AND seq = ?').get(ms, seq),
    );
  }

  async list(query: ListDecisionsQuery): Promise<Page<DecisionRecord>> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.cursor !== undefined && RECORD_ID.test(query.cursor)) {
      const [ms, seq] = query.cursor.split('-').map(Number);
      where.push('(ms < ? OR (ms = ? AND seq < ?))');
      params.push(ms, ms, seq);
    }
    const filters: [string, unknown][] = [
      ['strategy = ?', query.strategy],
      ['outcome = ?', query.outcome],
      ['user_id = ?', query.user],
      ['at >= ?', query.since],
    ];
    for (const [clause, value] of filters) {
      if (value === undefined) continue;
      where.push(clause);
      params.push(value);
    }
    const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const rows = this.db
      .prepare(`SELECT ms, seq, body FROM decisions ${filter} ORDER BY ms DESC, seq DESC LIMIT ?`)
      .all(...params, Math.min(query.limit + 1, SCAN_CAP));
    const items = rows.map(decode).filter((r): r is DecisionRecord => r !== null);
    if (items.length <= query.limit) return { items, nextCursor: null };
    const page = items.slice(0, query.limit);
    return { items: page, nextCursor: page.at(-1)?.id ?? null };
  }

  async since(since: number, max: number): Promise<DecisionRecord[]> {
    const rows = this.db
      .prepare('SELECT ms, seq, body FROM decisions WHERE at >= ? ORDER BY ms DESC, seq DESC LIMIT ?')
      .all(since, max);
    return rows.map(decode).filter((r): r is DecisionRecord => r !== null);
  }

  /** Drops the oldest of `count` records down to `max`; returns how many are left. */
  private trim(count: number): number {
    this.db
      .prepare(
        `DELETE FROM decisions WHERE (ms, seq) IN
           (SELECT ms, seq FROM decisions ORDER BY ms, seq LIMIT ?)`,
      )
      .run(count - this.options.max);
    return Number((this.db.prepare('SELECT count(*) AS n FROM decisions').get() as { n: number }).n);
  }
}

/** A row as a record; a malformed one is skipped. */
function decode(row: unknown): DecisionRecord | null {
  if (row === undefined || row === null) return null;
  const { ms, seq, body } = row as { ms: number; seq: number; body: string };
  try {
    const parsed = DecisionRecordSchema.safeParse({ ...JSON.parse(body), id: `${ms}-${seq}` });
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
