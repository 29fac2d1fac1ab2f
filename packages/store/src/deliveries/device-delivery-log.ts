import { type DeviceDelivery, deliveriesByInquiry, MAX_DEVICE_DELIVERIES } from '@hitl/protocol';
import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase, SqliteStatement } from '../sqlite/state-database.js';

/**
 * Which live device sockets got an inquiry (ops timeline): the newest `MAX_DEVICE_DELIVERIES` per
 * inquiry, in the node's store kind, so every node of a cluster reads what every other wrote.
 */
export interface DeviceDeliveryLog {
  /** Appends a batch (any inquiries); each inquiry keeps only its newest entries. */
  add(entries: readonly DeviceDelivery[]): Promise<void>;
  /** One inquiry's entries, newest first. */
  list(inquiryId: string): Promise<DeviceDelivery[]>;
}

/** This process only: at most `maxInquiries` inquiries (the least recently written dropped first). */
export class MemoryDeviceDeliveryLog implements DeviceDeliveryLog {
  private readonly byId = new Map<string, DeviceDelivery[]>();

  constructor(private readonly maxInquiries = 10_000) {}

  async add(entries: readonly DeviceDelivery[]): Promise<void> {
    for (const [inquiryId, added] of deliveriesByInquiry(entries)) {
      const kept = [...added.toReversed(), ...(this.byId.get(inquiryId) ?? [])];
      this.byId.delete(inquiryId);
      this.byId.set(inquiryId, kept.slice(0, MAX_DEVICE_DELIVERIES));
    }
    for (const oldest of this.byId.keys()) {
      if (this.byId.size <= this.maxInquiries) break;
      this.byId.delete(oldest);
    }
  }

  async list(inquiryId: string): Promise<DeviceDelivery[]> {
    return structuredClone(this.byId.get(inquiryId) ?? []);
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS device_deliveries (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  inquiry_id TEXT NOT NULL,
  body       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS device_deliveries_by_inquiry ON device_deliveries (inquiry_id, seq);
`;

/** The embedded node's: a table in its state file, trimmed per inquiry and to `maxRows` in all. */
export class SqliteDeviceDeliveryLog implements DeviceDeliveryLog {
  private readonly insert: SqliteStatement;
  private readonly trimInquiry: SqliteStatement;
  private readonly trimAll: SqliteStatement;
  private readonly newestOf: SqliteStatement;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly maxRows = 100_000,
  ) {
    migrate(db, 'device_deliveries', [{ version: 1, up: SCHEMA }]);
    this.insert = db.prepare('INSERT INTO device_deliveries (inquiry_id, body) VALUES (?, ?)');
    this.trimInquiry = db.prepare(
      `DELETE FROM device_deliveries WHERE inquiry_id = ? AND seq NOT IN
         (SELECT seq FROM device_deliveries WHERE inquiry_id = ? ORDER BY seq DESC LIMIT ${MAX_DEVICE_DELIVERIES})`,
    );
    this.trimAll = db.prepare(
      'DELETE FROM device_deliveries WHERE seq <= (SELECT MAX(seq) FROM device_deliveries) - ?',
    );
    this.newestOf = db.prepare(
      'SELECT body FROM device_deliveries WHERE inquiry_id = ? ORDER BY seq DESC LIMIT ?',
    );
  }

  async add(entries: readonly DeviceDelivery[]): Promise<void> {
    this.db.transaction(() => {
      for (const [inquiryId, added] of deliveriesByInquiry(entries)) {
        for (const entry of added) this.insert.run(inquiryId, JSON.stringify(entry));
        this.trimInquiry.run(inquiryId, inquiryId);
      }
      this.trimAll.run(this.maxRows);
    })();
  }

  async list(inquiryId: string): Promise<DeviceDelivery[]> {
    const rows = this.newestOf.all(inquiryId, MAX_DEVICE_DELIVERIES) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as DeviceDelivery);
  }
}

/*
 * The cluster's is `RedisDeviceDeliveryLog` (`redis/device-deliveries.ts`): the entries live in the inquiry's own
 * hash (`dlv`, `dlv:<n>`), written by one script per batch, and expire with the inquiry.
 */
