import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase } from '../sqlite/state-database.js';
import {
  type DeviceRecord,
  type DeviceStore,
  type DeviceTouch,
  type PairingRecord,
  touched,
} from './devices.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS pairings (
  code_hash TEXT PRIMARY KEY,
  pairing_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS pairings_by_expiry ON pairings (expires_at);
CREATE TABLE IF NOT EXISTS devices (
  user_id TEXT NOT NULL,
  jti TEXT NOT NULL,
  device_name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  iat INTEGER,
  exp INTEGER,
  PRIMARY KEY (user_id, jti)
);
`;

/**
 * Version 2: a pairing remembers the token that made it (`maker_jti`, `maker_iat`), so a claim can
 * refuse one whose maker was revoked. Pairings of a version-1 file have neither (NULL).
 */
const SCHEMA_V2 = `
ALTER TABLE pairings ADD COLUMN maker_jti TEXT;
ALTER TABLE pairings ADD COLUMN maker_iat INTEGER;
`;

interface PairingRow {
  code_hash: string;
  pairing_id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  maker_jti: string | null;
  maker_iat: number | null;
}

interface DeviceRow {
  user_id: string;
  jti: string;
  device_name: string;
  created_at: number;
  last_seen_at: number;
  iat: number | null;
  exp: number | null;
}

/**
 * Pairings and device records of a node without Redis, in its state file (tables `pairings` and
 * `devices`). A claim is one `DELETE … RETURNING`: of two claims of one code, one gets the row.
 */
export class SqliteDeviceStore implements DeviceStore {
  constructor(private readonly db: SqliteDatabase) {
    // Each step runs once per file (the version is recorded with it), so V2's ALTERs never repeat.
    migrate(db, 'devices', [
      { version: 1, up: SCHEMA },
      { version: 2, up: SCHEMA_V2 },
    ]);
  }

  async createPairing(pairing: PairingRecord): Promise<void> {
    this.db
      .transaction(() => {
        this.db.prepare('DELETE FROM pairings WHERE expires_at <= ?').run(pairing.createdAt);
        this.db
          .prepare(
            `INSERT OR REPLACE INTO pairings
               (code_hash, pairing_id, user_id, created_at, expires_at, maker_jti, maker_iat)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            pairing.codeHash,
            pairing.pairingId,
            pairing.userId,
            pairing.createdAt,
            pairing.expiresAt,
            pairing.makerJti ?? null,
            pairing.makerIat ?? null,
          );
      })
      .immediate();
  }

  async claimPairing(codeHash: string, now: number): Promise<PairingRecord | undefined> {
    const row = this.db.prepare('DELETE FROM pairings WHERE code_hash = ? RETURNING *').get(codeHash) as
      | PairingRow
      | undefined;
    if (!row || row.expires_at <= now) return undefined;
    return {
      pairingId: row.pairing_id,
      userId: row.user_id,
      codeHash: row.code_hash,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      ...(row.maker_jti !== null ? { makerJti: row.maker_jti } : {}),
      ...(row.maker_iat !== null ? { makerIat: Number(row.maker_iat) } : {}),
    };
  }

  async touchDevice(touch: DeviceTouch): Promise<DeviceRecord> {
    return this.db
      .transaction(() => {
        const before = this.db
          .prepare('SELECT * FROM devices WHERE user_id = ? AND jti = ?')
          .get(touch.userId, touch.jti) as DeviceRow | undefined;
        const record = touched(before ? toRecord(before) : undefined, touch);
        this.db
          .prepare(
            `INSERT OR REPLACE INTO devices (user_id, jti, device_name, created_at, last_seen_at, iat, exp)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            record.userId,
            record.jti,
            record.deviceName,
            record.createdAt,
            record.lastSeenAt,
            record.iat ?? null,
            record.exp ?? null,
          );
        return record;
      })
      .immediate();
  }

  async listDevices(userId: string): Promise<DeviceRecord[]> {
    const rows = this.db
      .prepare('SELECT * FROM devices WHERE user_id = ? ORDER BY created_at, jti')
      .all(userId) as DeviceRow[];
    return rows.map(toRecord);
  }

  async removeDevice(userId: string, jti: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM devices WHERE user_id = ? AND jti = ?').run(userId, jti).changes > 0;
  }

  /** Leaves the state file open: its owner (the node) closes it. */
  async close(): Promise<void> {}
}

function toRecord(row: DeviceRow): DeviceRecord {
  return {
    jti: row.jti,
    userId: row.user_id,
    deviceName: row.device_name,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    ...(row.iat !== null ? { iat: Number(row.iat) } : {}),
    ...(row.exp !== null ? { exp: Number(row.exp) } : {}),
  };
}
