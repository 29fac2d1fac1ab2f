import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase, SqliteStatement } from '../sqlite/state-database.js';
import {
  bySoonest,
  covers,
  decodeStanding,
  type NewStandingApproval,
  type StandingApproval,
  type StandingCall,
  type StandingFilter,
  type StandingStore,
  standingBody,
} from './standing.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS standing_approvals (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  created_by TEXT NOT NULL,
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  until INTEGER NOT NULL,
  uses INTEGER NOT NULL DEFAULT 0,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS standing_by_call ON standing_approvals (user_id, server, tool);
CREATE INDEX IF NOT EXISTS standing_by_maker ON standing_approvals (created_by);
CREATE INDEX IF NOT EXISTS standing_by_until ON standing_approvals (until);
`;

type Row = { body: string; uses: number };

/**
 * Standing approvals of a node without Redis, in its state file (table `standing_approvals`): they
 * outlive a restart. Reads skip rows past `until`; a create deletes them. A use counts with an
 * UPDATE that checks the row is still there and live, so an end wins over a use that read before it.
 */
export class SqliteStandingStore implements StandingStore {
  private readonly insert: SqliteStatement;
  private readonly candidates: SqliteStatement;
  private readonly count: SqliteStatement;
  private readonly byId: SqliteStatement;
  private readonly mine: SqliteStatement;
  private readonly every: SqliteStatement;
  private readonly covering: SqliteStatement;
  private readonly drop: SqliteStatement;
  private readonly dropEnded: SqliteStatement;

  constructor(db: SqliteDatabase) {
    migrate(db, 'standing_approvals', [{ version: 1, up: SCHEMA }]);
    this.insert = db.prepare(
      `INSERT INTO standing_approvals (id, user_id, created_by, server, tool, until, uses, body)
       VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
    );
    this.candidates = db.prepare(
      `SELECT body, uses FROM standing_approvals
       WHERE user_id = ? AND server = ? AND tool = ? AND until > ? ORDER BY until, id`,
    );
    this.count = db.prepare(
      'UPDATE standing_approvals SET uses = uses + 1 WHERE id = ? AND until > ? RETURNING uses',
    );
    this.byId = db.prepare('SELECT body, uses FROM standing_approvals WHERE id = ? AND until > ?');
    this.mine = db.prepare(
      `SELECT body, uses FROM standing_approvals
       WHERE (user_id = ? OR created_by = ?) AND until > ? ORDER BY until, id`,
    );
    this.every = db.prepare('SELECT body, uses FROM standing_approvals WHERE until > ? ORDER BY until, id');
    this.covering = db.prepare(
      'SELECT count(*) AS n FROM standing_approvals WHERE user_id = ? AND until > ?',
    );
    this.drop = db.prepare('DELETE FROM standing_approvals WHERE id = ? RETURNING body, uses, until');
    this.dropEnded = db.prepare('DELETE FROM standing_approvals WHERE until <= ?');
  }

  /** Written before the answer that made it is acknowledged (WAL commit, like the answer itself). */
  async create(approval: NewStandingApproval): Promise<StandingApproval> {
    const body = standingBody(approval);
    this.dropEnded.run(approval.createdAt);
    this.insert.run(
      body.id,
      body.userId,
      body.createdBy,
      body.server,
      body.tool,
      body.until,
      JSON.stringify(body),
    );
    return { ...body, uses: 0 };
  }

  async use(call: StandingCall, now: number): Promise<StandingApproval | null> {
    const rows = this.candidates.all(call.userId, call.server, call.tool, now) as Row[];
    for (const approval of decodeRows(rows)) {
      if (!covers(approval, call, now)) continue;
      const counted = this.count.get(approval.id, now) as { uses: number } | undefined;
      if (counted) return { ...approval, uses: counted.uses };
    }
    return null;
  }

  async get(id: string, now: number): Promise<StandingApproval | null> {
    const row = this.byId.get(id, now) as Row | undefined;
    return row ? decodeStanding(row.body, row.uses) : null;
  }

  async list(filter: StandingFilter, now: number): Promise<StandingApproval[]> {
    const rows = (
      'all' in filter ? this.every.all(now) : this.mine.all(filter.userId, filter.userId, now)
    ) as Row[];
    return decodeRows(rows).sort(bySoonest);
  }

  async countFor(userId: string, now: number): Promise<number> {
    return (this.covering.get(userId, now) as { n: number }).n;
  }

  async end(id: string, now: number): Promise<StandingApproval | null> {
    // One statement: a use counted before it shows in the uses returned.
    const row = this.drop.get(id) as (Row & { until: number }) | undefined;
    return row && row.until > now ? decodeStanding(row.body, row.uses) : null;
  }

  async close(): Promise<void> {}
}

function decodeRows(rows: Row[]): StandingApproval[] {
  return rows
    .map((row) => decodeStanding(row.body, row.uses))
    .filter((a): a is StandingApproval => a !== null);
}
