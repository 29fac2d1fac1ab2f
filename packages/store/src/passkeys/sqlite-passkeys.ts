import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase, SqliteStatement } from '../sqlite/state-database.js';
import {
  type ChallengeRecord,
  counterMovesOn,
  type PasskeyRecord,
  type PasskeyStore,
  type PasskeyUse,
} from './passkeys.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS passkeys (
  credential_id TEXT PRIMARY KEY,
  user_id       TEXT NOT NULL,
  body          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passkeys_by_user ON passkeys (user_id);
CREATE TABLE IF NOT EXISTS passkey_challenges (
  challenge  TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL,
  body       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS passkey_challenges_by_expiry ON passkey_challenges (expires_at);
`;

/** Passkeys of a node without Redis, in its state file (tables `passkeys`, `passkey_challenges`). */
export class SqlitePasskeyStore implements PasskeyStore {
  private readonly insert: SqliteStatement;
  private readonly byUser: SqliteStatement;
  private readonly byId: SqliteStatement;
  private readonly drop: SqliteStatement;
  private readonly rewrite: SqliteStatement;
  private readonly putOne: SqliteStatement;
  private readonly takeOne: SqliteStatement;
  private readonly dropExpired: SqliteStatement;

  constructor(db: SqliteDatabase) {
    migrate(db, 'passkeys', [{ version: 1, up: SCHEMA }]);
    this.insert = db.prepare(
      'INSERT OR IGNORE INTO passkeys (credential_id, user_id, body) VALUES (?, ?, ?)',
    );
    this.byUser = db.prepare('SELECT body FROM passkeys WHERE user_id = ? ORDER BY rowid').pluck();
    this.byId = db.prepare('SELECT body FROM passkeys WHERE credential_id = ? AND user_id = ?');
    this.drop = db.prepare('DELETE FROM passkeys WHERE credential_id = ? AND user_id = ?');
    this.rewrite = db.prepare('UPDATE passkeys SET body = ? WHERE credential_id = ?');
    this.putOne = db.prepare(
      'INSERT OR REPLACE INTO passkey_challenges (challenge, expires_at, body) VALUES (?, ?, ?)',
    );
    this.takeOne = db.prepare(
      'DELETE FROM passkey_challenges WHERE challenge = ? RETURNING expires_at, body',
    );
    this.dropExpired = db.prepare('DELETE FROM passkey_challenges WHERE expires_at <= ?');
  }

  async add(record: PasskeyRecord): Promise<'added' | 'exists'> {
    return this.insert.run(record.id, record.userId, JSON.stringify(record)).changes > 0 ? 'added' : 'exists';
  }

  async list(userId: string): Promise<PasskeyRecord[]> {
    return (this.byUser.all(userId) as string[]).map((body) => JSON.parse(body) as PasskeyRecord);
  }

  async get(userId: string, id: string): Promise<PasskeyRecord | null> {
    return this.read(userId, id);
  }

  private read(userId: string, id: string): PasskeyRecord | null {
    const row = this.byId.get(id, userId) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as PasskeyRecord) : null;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    return this.drop.run(id, userId).changes > 0;
  }

  async use(userId: string, id: string, counter: number, at: number): Promise<PasskeyUse> {
    // One writer (the file is locked to this process) and no await between read and write.
    const key = this.read(userId, id);
    if (!key) return 'not_found';
    if (!counterMovesOn(key.counter, counter)) return 'counter_not_increased';
    this.rewrite.run(JSON.stringify({ ...key, counter, lastUsedAt: at }), id);
    return 'used';
  }

  async putChallenge(record: ChallengeRecord): Promise<void> {
    this.dropExpired.run(Date.now());
    this.putOne.run(record.challenge, record.expiresAt, JSON.stringify(record));
  }

  async takeChallenge(challenge: string, now: number): Promise<ChallengeRecord | null> {
    const row = this.takeOne.get(challenge) as { expires_at: number; body: string } | undefined;
    return row && row.expires_at > now ? (JSON.parse(row.body) as ChallengeRecord) : null;
  }

  async close(): Promise<void> {}
}
