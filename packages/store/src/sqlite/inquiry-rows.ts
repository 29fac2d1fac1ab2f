import { audienceOf, type Inquiry, involvedUsers } from '@hitl/protocol';
import type { ListOptions } from '../store.js';
import type { SqliteDatabase, SqliteStatement as Statement } from './state-database.js';

/**
 * The inquiry table's queries, prepared once. Every read takes the store's `now` and skips rows past
 * their `expires_at`, so retention is exact even before a sweep deletes them.
 */
export class InquiryRows {
  private readonly byId: Statement;
  private readonly byKey: Statement;
  private readonly insertRow: Statement;
  private readonly dropExpiredFor: Statement;
  private readonly endRow: Statement;
  private readonly rewritePending: Statement;
  private readonly pendingOfUser: Statement;
  private readonly pendingOfAll: Statement;
  private readonly due: Statement;
  private readonly dropExpired: Statement;
  private readonly insertMember: Statement;
  private readonly insertPendingUser: Statement;
  private readonly dropPendingUser: Statement;
  private readonly dropOrphanPendingUsers: Statement;
  private readonly dropOrphanMembers: Statement;
  private readonly insertEscalation: Statement;
  private readonly dropOrphanEscalations: Statement;
  private readonly dropEscalation: Statement;
  private readonly dueEscalations: Statement;
  private readonly lists = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {
    this.byId = db.prepare('SELECT body FROM inquiries WHERE inquiry_id = ? AND expires_at > ?');
    this.byKey = db.prepare(
      'SELECT body FROM inquiries WHERE user_id = ? AND idempotency_key = ? AND expires_at > ?',
    );
    this.insertRow = db.prepare(
      `INSERT OR IGNORE INTO inquiries (inquiry_id, user_id, idempotency_key, status, service_at, expires_at, body)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.dropExpiredFor = db.prepare(
      `DELETE FROM inquiries WHERE expires_at <= ?
         AND (inquiry_id = ? OR (user_id = ? AND idempotency_key = ?))`,
    );
    this.endRow = db.prepare(
      `UPDATE inquiries SET status = ?, expires_at = ?, body = ?
       WHERE inquiry_id = ? AND status = 'pending' AND expires_at > ?`,
    );
    this.rewritePending = db.prepare(
      "UPDATE inquiries SET body = ? WHERE inquiry_id = ? AND status = 'pending' AND expires_at > ?",
    );
    // The user's own rows only (the asker and every member): not a scan of every pending inquiry.
    this.pendingOfUser = db.prepare(
      `SELECT count(*) AS n FROM inquiry_pending_users p JOIN inquiries i ON i.inquiry_id = p.inquiry_id
       WHERE p.user_id = ? AND i.status = 'pending' AND i.expires_at > ?`,
    );
    this.pendingOfAll = db.prepare(
      "SELECT count(*) AS n FROM inquiries WHERE status = 'pending' AND expires_at > ?",
    );
    // The sweeps run twice a second: each reads only the due end of its index (left to itself the
    // planner walked every pending row through `inquiries_by_status`, ~5 ms at 10,000 pending).
    this.due = db.prepare(
      `SELECT inquiry_id AS id FROM inquiries INDEXED BY inquiries_due
       WHERE status = 'pending' AND service_at <= ? AND expires_at > ?
       ORDER BY service_at, inquiry_id LIMIT ?`,
    );
    this.dropExpired = db.prepare('DELETE FROM inquiries WHERE expires_at <= ?');
    this.insertMember = db.prepare(
      'INSERT OR IGNORE INTO inquiry_audience (user_id, inquiry_id) VALUES (?, ?)',
    );
    this.insertPendingUser = db.prepare(
      'INSERT OR IGNORE INTO inquiry_pending_users (user_id, inquiry_id) VALUES (?, ?)',
    );
    this.dropPendingUser = db.prepare(
      'DELETE FROM inquiry_pending_users WHERE user_id = ? AND inquiry_id = ?',
    );
    this.dropOrphanPendingUsers = db.prepare(
      `DELETE FROM inquiry_pending_users WHERE NOT EXISTS
         (SELECT 1 FROM inquiries i WHERE i.inquiry_id = inquiry_pending_users.inquiry_id AND i.status = 'pending')`,
    );
    this.dropOrphanMembers = db.prepare(
      `DELETE FROM inquiry_audience WHERE NOT EXISTS
         (SELECT 1 FROM inquiries i WHERE i.inquiry_id = inquiry_audience.inquiry_id)`,
    );
    this.insertEscalation = db.prepare(
      'INSERT OR REPLACE INTO inquiry_escalations (inquiry_id, due_at) VALUES (?, ?)',
    );
    this.dropOrphanEscalations = db.prepare(
      `DELETE FROM inquiry_escalations WHERE NOT EXISTS
         (SELECT 1 FROM inquiries i WHERE i.inquiry_id = inquiry_escalations.inquiry_id AND i.status = 'pending')`,
    );
    this.dropEscalation = db.prepare('DELETE FROM inquiry_escalations WHERE inquiry_id = ?');
    this.dueEscalations = db.prepare(
      `SELECT e.inquiry_id AS id
       FROM inquiry_escalations e INDEXED BY inquiry_escalations_due CROSS JOIN inquiries i ON i.inquiry_id = e.inquiry_id
       WHERE e.due_at <= ? AND i.status = 'pending' AND i.expires_at > ?
       ORDER BY e.due_at, e.inquiry_id LIMIT ?`,
    );
  }

  get(inquiryId: string, now: number): Inquiry | undefined {
    return parse(this.byId.get(inquiryId, now));
  }

  getByKey(userId: string, idempotencyKey: string, now: number): Inquiry | undefined {
    return parse(this.byKey.get(userId, idempotencyKey, now));
  }

  /** Deletes expired rows that would block a new row's id or idempotency key. */
  dropExpiredConflicts(inquiry: Inquiry, now: number): void {
    this.dropExpiredFor.run(now, inquiry.inquiryId, inquiry.userId, inquiry.idempotencyKey ?? null);
  }

  /** Inserts a new inquiry and its index rows; false (nothing written) when its id or key is taken. */
  insert(inquiry: Inquiry, expiresAt: number): boolean {
    const inserted = this.insertRow.run(
      inquiry.inquiryId,
      inquiry.userId,
      inquiry.idempotencyKey ?? null,
      inquiry.status,
      inquiry.deadlines.serviceAt,
      expiresAt,
      JSON.stringify(inquiry),
    );
    if (inserted.changes !== 1) return false;
    this.addMembers(inquiry);
    if (inquiry.escalation && plansEscalation(inquiry)) {
      this.insertEscalation.run(inquiry.inquiryId, inquiry.escalation.at);
    }
    return true;
  }

  /** Lists the inquiry for every user it is addressed to (again after an escalation added some). */
  addMembers(inquiry: Inquiry): void {
    for (const userId of new Set(audienceOf(inquiry))) this.insertMember.run(userId, inquiry.inquiryId);
    for (const userId of involvedUsers(inquiry)) this.insertPendingUser.run(userId, inquiry.inquiryId);
  }

  /** Forgets the inquiry's planned escalation (it happened, or the inquiry ended). */
  forgetEscalation(inquiryId: string): void {
    this.dropEscalation.run(inquiryId);
  }

  listDueEscalations(due: number, now: number, limit: number): string[] {
    return (this.dueEscalations.all(due, now, limit) as { id: string }[]).map((row) => row.id);
  }

  /**
   * Writes an ended inquiry over its pending row, and drops its index rows (users it counts against,
   * a planned escalation: only when it had one); false when the row is no longer pending.
   */
  end(inquiry: Inquiry, expiresAt: number, now: number): boolean {
    const result = this.endRow.run(
      inquiry.status,
      expiresAt,
      JSON.stringify(inquiry),
      inquiry.inquiryId,
      now,
    );
    if (result.changes !== 1) return false;
    for (const userId of involvedUsers(inquiry)) this.dropPendingUser.run(userId, inquiry.inquiryId);
    if (plansEscalation(inquiry)) this.forgetEscalation(inquiry.inquiryId);
    return true;
  }

  /** Rewrites a pending inquiry's body (a new suggestion); false when it is no longer pending. */
  rewrite(inquiry: Inquiry, now: number): boolean {
    return this.rewritePending.run(JSON.stringify(inquiry), inquiry.inquiryId, now).changes === 1;
  }

  countPending(userId: string | undefined, now: number): number {
    const row = userId === undefined ? this.pendingOfAll.get(now) : this.pendingOfUser.get(userId, now);
    return Number((row as { n: number }).n);
  }

  listDue(due: number, now: number, limit: number): string[] {
    return (this.due.all(due, now, limit) as { id: string }[]).map((row) => row.id);
  }

  /** Up to `limit` live inquiries (with a user: those addressed to that user), newest first, after the cursor. */
  list(options: ListOptions, now: number, limit: number): Inquiry[] {
    const { userId, status, cursor } = options;
    const where = ['i.expires_at > ?'];
    const params: unknown[] = [now];
    let from = 'inquiries i';
    if (userId !== undefined) {
      from = 'inquiry_audience a JOIN inquiries i ON i.inquiry_id = a.inquiry_id';
      where.push('a.user_id = ?');
      params.push(userId);
    }
    if (status === 'pending') where.push("i.status = 'pending'");
    if (cursor !== undefined) {
      where.push('i.inquiry_id < ?');
      params.push(cursor);
    }
    const sql = `SELECT i.body FROM ${from} WHERE ${where.join(' AND ')} ORDER BY i.inquiry_id DESC LIMIT ?`;
    let statement = this.lists.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.lists.set(sql, statement);
    }
    return statement.all(...params, limit).map((row) => parse(row) as Inquiry);
  }

  /** Deletes every expired row; returns how many. */
  sweep(now: number): number {
    const dropped = this.dropExpired.run(now).changes;
    if (dropped > 0) {
      this.dropOrphanMembers.run();
      this.dropOrphanPendingUsers.run();
      this.dropOrphanEscalations.run();
    }
    return dropped;
  }
}

/** Whether the inquiry has an escalation still to happen (a row in `inquiry_escalations`). */
function plansEscalation(inquiry: Inquiry): boolean {
  return inquiry.escalation !== undefined && inquiry.escalation.escalatedAt === undefined;
}

function parse(row: unknown): Inquiry | undefined {
  if (row === undefined || row === null) return undefined;
  return JSON.parse((row as { body: string }).body) as Inquiry;
}
