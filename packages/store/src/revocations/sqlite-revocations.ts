import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase, StateDatabase } from '../sqlite/state-database.js';
import { LocalChanges } from './local-changes.js';
import type { RevocationList, RevocationStore } from './revocations.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS revoked_tokens (jti TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS revoked_users (user_id TEXT PRIMARY KEY, issued_up_to INTEGER NOT NULL);
`;

export interface SqliteRevocationOptions {
  /** The node's open state file (shared with the inquiry store and the decision log). */
  database: Pick<StateDatabase, 'db' | 'syncWal'>;
  nowSec?: () => number;
}

/**
 * Revocations of a node without Redis, kept in its state file: a revoked token stays refused after a
 * restart. One process holds the file, so a change is announced to this process's listeners only.
 * A revocation is fsynced before it is acknowledged (like an answer).
 */
export class SqliteRevocationStore implements RevocationStore {
  private readonly db: SqliteDatabase;
  private readonly syncWal: () => Promise<void>;
  private readonly nowSec: () => number;
  private readonly changes = new LocalChanges();

  constructor(options: SqliteRevocationOptions) {
    this.db = options.database.db;
    this.syncWal = () => options.database.syncWal();
    this.nowSec = options.nowSec ?? (() => Math.floor(Date.now() / 1000));
    migrate(this.db, 'revocations', [{ version: 1, up: SCHEMA }]);
  }

  async revokeToken(jti: string, expiresAtSec = 0): Promise<void> {
    this.db
      .prepare('INSERT OR REPLACE INTO revoked_tokens (jti, expires_at) VALUES (?, ?)')
      .run(jti, expiresAtSec);
    await this.syncWal();
    this.changes.emit();
  }

  async revokeUser(userId: string, issuedUpToSec: number): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO revoked_users (user_id, issued_up_to) VALUES (?, ?)
         ON CONFLICT (user_id) DO UPDATE SET issued_up_to = max(issued_up_to, excluded.issued_up_to)`,
      )
      .run(userId, issuedUpToSec);
    await this.syncWal();
    this.changes.emit();
  }

  async list(): Promise<RevocationList> {
    const now = this.nowSec();
    // An expired token is refused by its `exp` already; its entry can go.
    this.db.prepare('DELETE FROM revoked_tokens WHERE expires_at > 0 AND expires_at < ?').run(now);
    const tokens = this.db.prepare('SELECT jti, expires_at FROM revoked_tokens').all() as {
      jti: string;
      expires_at: number;
    }[];
    const users = this.db.prepare('SELECT user_id, issued_up_to FROM revoked_users').all() as {
      user_id: string;
      issued_up_to: number;
    }[];
    return {
      tokens: new Map(tokens.map((row) => [row.jti, row.expires_at])),
      users: new Map(users.map((row) => [row.user_id, row.issued_up_to])),
    };
  }

  onChange(listener: () => void): () => void {
    return this.changes.add(listener);
  }

  async ready(): Promise<void> {}

  /** Leaves the state file open: its owner (the node) closes it. */
  async close(): Promise<void> {
    this.changes.clear();
  }
}
