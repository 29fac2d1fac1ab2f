import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase, SqliteStatement } from '../sqlite/state-database.js';
import { PushListCache } from './push-list-cache.js';
import {
  type NewPushSubscription,
  newPushSubscriptionId,
  type PushSubscriptionRecord,
  type PushSubscriptionStore,
  type SavePushResult,
} from './push-subscriptions.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS push_subscriptions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  p256dh TEXT NOT NULL,
  auth TEXT NOT NULL,
  device_name TEXT,
  token_jti TEXT,
  token_iat INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (user_id, endpoint)
);
CREATE INDEX IF NOT EXISTS push_subscriptions_by_age ON push_subscriptions (user_id, updated_at, id);
`;

interface Row {
  id: string;
  user_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  device_name: string | null;
  token_jti: string | null;
  token_iat: number | null;
  created_at: number;
  updated_at: number;
}

const ORDER = 'ORDER BY updated_at, id';

/**
 * Push subscriptions of a node without Redis, in its state file (`push_subscriptions`): kept across
 * restarts. A save (upsert and the cap) is one transaction. The file has one writer (this node, the
 * file is locked), so the lists kept for sending are dropped on every change made here and are
 * otherwise exact: a new inquiry reads nothing for a user already known.
 */
export class SqlitePushSubscriptionStore implements PushSubscriptionStore {
  private readonly cache = new PushListCache();
  private readonly ofUser: SqliteStatement;

  constructor(private readonly db: SqliteDatabase) {
    migrate(db, 'push-subscriptions', [{ version: 1, up: SCHEMA }]);
    this.ofUser = db.prepare(`SELECT * FROM push_subscriptions WHERE user_id = ? ${ORDER}`);
  }

  async save(subscription: NewPushSubscription, maxPerUser: number): Promise<SavePushResult> {
    const { userId, endpoint, keys, deviceName, token, at } = subscription;
    this.cache.changed(userId);
    return this.db
      .transaction(() => {
        const existing = this.db
          .prepare('SELECT id FROM push_subscriptions WHERE user_id = ? AND endpoint = ?')
          .get(userId, endpoint) as { id: string } | undefined;
        const id = existing?.id ?? newPushSubscriptionId();
        this.db
          .prepare(
            `INSERT INTO push_subscriptions
               (id, user_id, endpoint, p256dh, auth, device_name, token_jti, token_iat, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (id) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth,
               device_name = excluded.device_name, token_jti = excluded.token_jti,
               token_iat = excluded.token_iat, updated_at = excluded.updated_at`,
          )
          .run(
            id,
            userId,
            endpoint,
            keys.p256dh,
            keys.auth,
            deviceName ?? null,
            token?.jti ?? null,
            token?.iat ?? null,
            at,
            at,
          );
        const { count } = this.db
          .prepare('SELECT count(*) AS count FROM push_subscriptions WHERE user_id = ?')
          .get(userId) as { count: number };
        const over = count - maxPerUser;
        const dropped =
          over > 0
            ? (
                this.db
                  .prepare(`SELECT id FROM push_subscriptions WHERE user_id = ? ${ORDER} LIMIT ?`)
                  .all(userId, over) as { id: string }[]
              ).map((row) => row.id)
            : [];
        const drop = this.db.prepare('DELETE FROM push_subscriptions WHERE id = ?');
        for (const gone of dropped) drop.run(gone);
        return { id, created: !existing, dropped };
      })
      .immediate();
  }

  async list(userId: string): Promise<PushSubscriptionRecord[]> {
    return (this.ofUser.all(userId) as Row[]).map(toRecord);
  }

  listForPush(userId: string): Promise<PushSubscriptionRecord[]> {
    return this.cache.through(userId, (id) => this.list(id));
  }

  async remove(userId: string, id: string): Promise<boolean> {
    this.cache.changed(userId);
    const result = this.db
      .prepare('DELETE FROM push_subscriptions WHERE user_id = ? AND id = ?')
      .run(userId, id);
    return result.changes > 0;
  }

  async removeEndpoint(userId: string, endpoint: string): Promise<boolean> {
    this.cache.changed(userId);
    const result = this.db
      .prepare('DELETE FROM push_subscriptions WHERE user_id = ? AND endpoint = ?')
      .run(userId, endpoint);
    return result.changes > 0;
  }

  /** Leaves the state file open: its owner (the node) closes it. */
  async close(): Promise<void> {}
}

function toRecord(row: Row): PushSubscriptionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    endpoint: row.endpoint,
    keys: { p256dh: row.p256dh, auth: row.auth },
    ...(row.device_name !== null ? { deviceName: row.device_name } : {}),
    ...(row.token_jti !== null || row.token_iat !== null
      ? {
          token: {
            ...(row.token_jti !== null ? { jti: row.token_jti } : {}),
            ...(row.token_iat !== null ? { iat: Number(row.token_iat) } : {}),
          },
        }
      : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
