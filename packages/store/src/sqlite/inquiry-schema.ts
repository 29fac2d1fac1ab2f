import { migrate } from './migrate.js';
import type { SqliteDatabase } from './state-database.js';

/** The version of the inquiry tables this build writes. */
export const INQUIRY_SCHEMA_VERSION = 4;

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

/**
 * Version 2: who each inquiry is addressed to, one row per (user, inquiry): the audience's members,
 * or the asker's user when the inquiry has no audience. Listings by user read it. A version-1 file
 * is brought forward by filling it from the existing rows (each addressed to its asker).
 */
const SCHEMA_V2 = `
CREATE TABLE IF NOT EXISTS inquiry_audience (
  user_id    TEXT NOT NULL,
  inquiry_id TEXT NOT NULL,
  PRIMARY KEY (user_id, inquiry_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS inquiry_audience_by_inquiry ON inquiry_audience (inquiry_id);
INSERT OR IGNORE INTO inquiry_audience (user_id, inquiry_id) SELECT user_id, inquiry_id FROM inquiries;
`;

/**
 * Version 3: the escalations still to happen, one row per pending inquiry with one
 * planned, deleted when it escalates or ends; the escalation sweep reads it by due time.
 */
const SCHEMA_V3 = `
CREATE TABLE IF NOT EXISTS inquiry_escalations (
  inquiry_id TEXT PRIMARY KEY,
  due_at     INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS inquiry_escalations_due ON inquiry_escalations (due_at, inquiry_id);
`;

/**
 * Version 4: the users each pending inquiry counts against (its asker and everyone it is addressed
 * to), one row per (user, inquiry), deleted when it ends: the per-user pending cap counts a user's
 * own rows instead of every pending inquiry. Filled from the pending rows of an older file.
 * `inquiries_by_user` goes: no query reads it since version 2 (listings by user read the audience),
 * and every create and end paid a page write for it.
 */
const SCHEMA_V4 = `
CREATE TABLE IF NOT EXISTS inquiry_pending_users (
  user_id    TEXT NOT NULL,
  inquiry_id TEXT NOT NULL,
  PRIMARY KEY (user_id, inquiry_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO inquiry_pending_users (user_id, inquiry_id)
  SELECT user_id, inquiry_id FROM inquiries WHERE status = 'pending';
INSERT OR IGNORE INTO inquiry_pending_users (user_id, inquiry_id)
  SELECT a.user_id, a.inquiry_id FROM inquiry_audience a JOIN inquiries i ON i.inquiry_id = a.inquiry_id
  WHERE i.status = 'pending';
DROP INDEX IF EXISTS inquiries_by_user;
`;

/**
 * Creates the inquiry tables, or brings an existing file's forward (the steps above its version, in
 * order; a new file runs them all), or checks that they are ones this build reads.
 */
export function migrateInquiryTables(db: SqliteDatabase): void {
  migrate(db, 'inquiries', [
    { version: 1, up: SCHEMA_V1 },
    { version: 2, up: SCHEMA_V2 },
    { version: 3, up: SCHEMA_V3 },
    { version: INQUIRY_SCHEMA_VERSION, up: SCHEMA_V4 },
  ]);
}
