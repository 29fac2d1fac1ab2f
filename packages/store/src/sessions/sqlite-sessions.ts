import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase, SqliteStatement } from '../sqlite/state-database.js';
import { decodeSession, MAX_SESSIONS_PER_USER, type McpSession, type McpSessionStore } from './sessions.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS mcp_sessions (
  session_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mcp_sessions_by_user ON mcp_sessions (user_id, expires_at);
CREATE INDEX IF NOT EXISTS mcp_sessions_by_expiry ON mcp_sessions (expires_at);
`;

export interface SqliteSessionOptions {
  /** The node's open state file (shared with the inquiry store). */
  db: SqliteDatabase;
  now?: () => number;
}

/**
 * Sessions of a node without Redis, in its state file (table `mcp_sessions`): a session outlives a
 * restart of the node (also a `kill -9`: each write is committed before the call returns), so the
 * client's next POST after the restart is served, not refused 404. The expiry is its own column
 * (renewals move it); reads skip rows past it and a create deletes them.
 */
export class SqliteSessionStore implements McpSessionStore {
  private readonly now: () => number;
  private readonly insert: SqliteStatement;
  private readonly byId: SqliteStatement;
  private readonly touch: SqliteStatement;
  private readonly drop: SqliteStatement;
  private readonly dropExpired: SqliteStatement;
  private readonly dropOldest: SqliteStatement;

  constructor(options: SqliteSessionOptions) {
    const { db } = options;
    this.now = options.now ?? Date.now;
    migrate(db, 'mcp_sessions', [{ version: 1, up: SCHEMA }]);
    this.insert = db.prepare(
      'INSERT OR REPLACE INTO mcp_sessions (session_id, user_id, expires_at, body) VALUES (?, ?, ?, ?)',
    );
    this.byId = db.prepare(
      'SELECT body, expires_at FROM mcp_sessions WHERE session_id = ? AND user_id = ? AND expires_at > ?',
    );
    this.touch = db.prepare(
      'UPDATE mcp_sessions SET expires_at = ? WHERE session_id = ? AND user_id = ? AND expires_at > ?',
    );
    this.drop = db.prepare(
      'DELETE FROM mcp_sessions WHERE session_id = ? AND user_id = ? AND expires_at > ?',
    );
    this.dropExpired = db.prepare('DELETE FROM mcp_sessions WHERE expires_at <= ?');
    this.dropOldest = db.prepare(
      `DELETE FROM mcp_sessions WHERE session_id IN (
         SELECT session_id FROM mcp_sessions WHERE user_id = ? ORDER BY expires_at DESC LIMIT -1 OFFSET ?)`,
    );
  }

  async create(session: McpSession): Promise<void> {
    this.dropExpired.run(this.now());
    this.insert.run(session.sessionId, session.userId, session.expiresAt, JSON.stringify(session));
    this.dropOldest.run(session.userId, MAX_SESSIONS_PER_USER);
  }

  async get(sessionId: string, userId: string): Promise<McpSession | null> {
    const row = this.byId.get(sessionId, userId, this.now()) as
      | { body: string; expires_at: number }
      | undefined;
    const session = decodeSession(row?.body);
    return session && row ? { ...session, expiresAt: row.expires_at } : null;
  }

  async renew(sessionId: string, userId: string, expiresAt: number): Promise<boolean> {
    return this.touch.run(expiresAt, sessionId, userId, this.now()).changes > 0;
  }

  async remove(sessionId: string, userId: string): Promise<boolean> {
    return this.drop.run(sessionId, userId, this.now()).changes > 0;
  }

  /** Leaves the state file open: its owner (the node) closes it. */
  async close(): Promise<void> {}
}
