import { migrate } from './migrate.js';
import type { SqliteDatabase } from './state-database.js';

/** The version of the inquiry tables this build writes. */
export const INQUIRY_SCHEMA_VERSION = 1;

/**
 * One row per inquiry: the inquiry as JSON in `body`, plus the columns the queries filter on.
 * `expires_at` is when retention drops the row (store clock, epoch ms): the service deadline plus the
 * retention while pending, the resolution time plus the retention once ended.
 */
const SCHEMA_V1 = `
CREATE TABLE IF NOT EXISTS inquiries (
  inquiry_id      TEXT PRIMARY KEY,
  user_id         TEXT NOT NULL,
  idempotency_key TEXT,
  status          TEXT NOT NULL,
  service_at      INTEGER NOT NULL,
  expires_at      INTEGER NOT NULL,
  body            TEXT NOT NULL
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS inquiries_by_key
  ON inquiries (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS inquiries_by_user ON inquiries (user_id, status, inquiry_id);
CREATE INDEX IF NOT EXISTS inquiries_by_status ON inquiries (status, inquiry_id);
CREATE INDEX IF NOT EXISTS inquiries_due ON inquiries (service_at, inquiry_id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS inquiries_by_expiry ON inquiries (expires_at);
`;

/** Creates the inquiry tables, or checks that an existing file's are ones this build reads. */
export function migrateInquiryTables(db: SqliteDatabase): void {
  migrate(db, 'inquiries', INQUIRY_SCHEMA_VERSION, SCHEMA_V1);
}
