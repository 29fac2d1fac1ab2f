import { type Migration, migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase } from '../sqlite/state-database.js';
import type { GrantState, NewGrant, Operation, OperationClaim, StoredCall } from './proxy-store.js';

/** Version 1: the proxy's tables in its own state file (`HITL_STATE_DIR/proxy.db`). */
const SCHEMA_V1 = `
CREATE TABLE IF NOT EXISTS proxy_grants (
  grant_id   TEXT PRIMARY KEY,
  user_id    TEXT NOT NULL,
  digest     TEXT NOT NULL,
  state      TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  remove_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS proxy_grants_by_removal ON proxy_grants (remove_at);
CREATE TABLE IF NOT EXISTS proxy_operations (
  user_id    TEXT NOT NULL,
  key        TEXT NOT NULL,
  digest     TEXT NOT NULL,
  state      TEXT NOT NULL,
  owner      TEXT NOT NULL,
  inquiry_id TEXT,
  grant_id   TEXT,
  result     TEXT,
  updated_at INTEGER NOT NULL,
  remove_at  INTEGER NOT NULL,
  PRIMARY KEY (user_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS proxy_operations_by_removal ON proxy_operations (remove_at);
`;

/** Version 2: `drive_until` and `call`, for approvals that outlive the hold. */
const SCHEMA_V2 = `
ALTER TABLE proxy_operations ADD COLUMN drive_until INTEGER;
ALTER TABLE proxy_operations ADD COLUMN call TEXT;
`;

/** The proxy's steps, in order (see `migrate` in @hitl/store): a file of any older version opens. */
export const PROXY_MIGRATIONS: readonly Migration[] = [
  { version: 1, up: SCHEMA_V1 },
  { version: 2, up: SCHEMA_V2 },
];

export interface GrantRow extends NewGrant {
  state: GrantState;
}

interface OperationColumns {
  user_id: string;
  key: string;
  digest: string;
  state: Operation['state'];
  owner: string;
  inquiry_id: string | null;
  grant_id: string | null;
  result: string | null;
  updated_at: number;
  drive_until: number | null;
  call: string | null;
}

/** Creates the proxy tables (or checks their version) and reads rows; rows past `remove_at` are gone. */
export class ProxyRows {
  constructor(private readonly db: SqliteDatabase) {
    migrate(db, 'proxy', PROXY_MIGRATIONS);
  }

  grant(grantId: string, now: number): GrantRow | undefined {
    const row = this.db
      .prepare(
        `SELECT grant_id, user_id, digest, state, expires_at FROM proxy_grants
         WHERE grant_id = ? AND remove_at > ?`,
      )
      .get(grantId, now) as
      | { grant_id: string; user_id: string; digest: string; state: GrantState; expires_at: number }
      | undefined;
    if (!row) return undefined;
    return {
      grantId: row.grant_id,
      userId: row.user_id,
      digest: row.digest,
      state: row.state,
      expiresAt: Number(row.expires_at),
    };
  }

  insertGrant(grant: NewGrant, removeAt: number): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO proxy_grants (grant_id, user_id, digest, state, expires_at, remove_at)
         VALUES (?, ?, ?, 'pending', ?, ?)`,
      )
      .run(grant.grantId, grant.userId, grant.digest, grant.expiresAt, removeAt);
  }

  /**
   * Moves a grant from `from` to `to` (and binds it to `digest` when given); false when it was not in
   * `from` (someone else moved it).
   */
  moveGrant(grantId: string, from: GrantState, to: GrantState, digest?: string): boolean {
    return (
      this.db
        .prepare(
          'UPDATE proxy_grants SET state = ?, digest = coalesce(?, digest) WHERE grant_id = ? AND state = ?',
        )
        .run(to, digest ?? null, grantId, from).changes === 1
    );
  }

  operation(userId: string, key: string, now: number): Operation | undefined {
    const row = this.db
      .prepare('SELECT * FROM proxy_operations WHERE user_id = ? AND key = ? AND remove_at > ?')
      .get(userId, key, now) as OperationColumns | undefined;
    if (!row) return undefined;
    return {
      userId: row.user_id,
      key: row.key,
      digest: row.digest,
      state: row.state,
      owner: row.owner,
      ...(row.inquiry_id !== null ? { inquiryId: row.inquiry_id } : {}),
      ...(row.grant_id !== null ? { grantId: row.grant_id } : {}),
      ...(row.result !== null ? { result: JSON.parse(row.result) as unknown } : {}),
      updatedAt: Number(row.updated_at),
      // A row written by version 1 is driven by its owner until its lease ends.
      driveUntil: row.drive_until === null ? Number.MAX_SAFE_INTEGER : Number(row.drive_until),
      ...(row.call !== null ? { call: JSON.parse(row.call) as StoredCall } : {}),
    };
  }

  /** Claims the key unless a live row holds it (a lapsed one is replaced); true when claimed. */
  claimOperation(op: OperationClaim, removeAt: number, now: number): boolean {
    this.db
      .prepare('DELETE FROM proxy_operations WHERE user_id = ? AND key = ? AND remove_at <= ?')
      .run(op.userId, op.key, now);
    return (
      this.db
        .prepare(
          `INSERT OR IGNORE INTO proxy_operations
             (user_id, key, digest, state, owner, updated_at, remove_at, drive_until, call)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          op.userId,
          op.key,
          op.digest,
          op.state,
          op.owner,
          now,
          removeAt,
          op.driveUntil ?? removeAt,
          op.call ? JSON.stringify(op.call) : null,
        ).changes === 1
    );
  }

  /** Rewrites the owner's live, unfinished operation; false when it is not theirs or gone. */
  updateOperation(
    userId: string,
    key: string,
    owner: string,
    patch: { state: string; inquiryId?: string; grantId?: string; driveUntil?: number },
    now: number,
  ): boolean {
    return (
      this.db
        .prepare(
          `UPDATE proxy_operations
           SET state = ?, inquiry_id = coalesce(?, inquiry_id), grant_id = coalesce(?, grant_id),
               drive_until = coalesce(?, drive_until), updated_at = ?
           WHERE user_id = ? AND key = ? AND owner = ? AND state != 'done' AND remove_at > ?`,
        )
        .run(
          patch.state,
          patch.inquiryId ?? null,
          patch.grantId ?? null,
          patch.driveUntil ?? null,
          now,
          userId,
          key,
          owner,
          now,
        ).changes === 1
    );
  }

  /** Gives an operation waiting for a late approval, driven by nobody, to `owner`; true when it did. */
  adoptOperation(userId: string, key: string, owner: string, driveUntil: number, now: number): boolean {
    return (
      this.db
        .prepare(
          `UPDATE proxy_operations SET owner = ?, drive_until = ?, updated_at = ?
           WHERE user_id = ? AND key = ? AND state = 'awaiting_approval'
             AND drive_until IS NOT NULL AND drive_until <= ? AND remove_at > ?`,
        )
        .run(owner, driveUntil, now, userId, key, now, now).changes === 1
    );
  }

  finishOperation(
    userId: string,
    key: string,
    owner: string,
    result: unknown,
    removeAt: number,
    now: number,
  ): boolean {
    return (
      this.db
        .prepare(
          `UPDATE proxy_operations SET state = 'done', result = ?, updated_at = ?, remove_at = ?
           WHERE user_id = ? AND key = ? AND owner = ? AND remove_at > ?`,
        )
        .run(result === undefined ? null : JSON.stringify(result), now, removeAt, userId, key, owner, now)
        .changes === 1
    );
  }

  /** Every live operation not yet `done`. */
  unfinishedOperations(now: number): Operation[] {
    const keys = this.db
      .prepare(`SELECT user_id, key FROM proxy_operations WHERE state != 'done' AND remove_at > ?`)
      .all(now) as { user_id: string; key: string }[];
    return keys.flatMap((k) => this.operation(k.user_id, k.key, now) ?? []);
  }

  /** Parks an unfinished operation: nobody waits on it now, so whoever collects it may adopt it. */
  parkOperation(userId: string, key: string): void {
    this.db
      .prepare(
        `UPDATE proxy_operations SET drive_until = 0 WHERE user_id = ? AND key = ? AND state != 'done'`,
      )
      .run(userId, key);
  }

  /** Deletes every row past its `remove_at`. */
  prune(now: number): void {
    this.db.prepare('DELETE FROM proxy_grants WHERE remove_at <= ?').run(now);
    this.db.prepare('DELETE FROM proxy_operations WHERE remove_at <= ?').run(now);
  }
}
