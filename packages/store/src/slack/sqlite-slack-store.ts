import { migrate } from '../sqlite/migrate.js';
import type { SqliteDatabase } from '../sqlite/state-database.js';
import type { SlackPost, SlackStore } from './slack-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS slack_posts (
  inquiry_id TEXT NOT NULL,
  target     TEXT NOT NULL,
  body       TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (inquiry_id, target)
);
CREATE INDEX IF NOT EXISTS slack_posts_by_expiry ON slack_posts (expires_at);
CREATE TABLE IF NOT EXISTS slack_claims (
  key        TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS slack_claims_by_expiry ON slack_claims (expires_at);
`;

/** How often expired rows are deleted (on a write). */
const PRUNE_EVERY_MS = 60_000;

/**
 * The embedded node's Slack records: two tables in its state file. One process holds the file, so a
 * claim is one statement: an insert, or taking over a claim that expired.
 */
export class SqliteSlackStore implements SlackStore {
  private prunedAt = 0;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly now: () => number,
  ) {
    migrate(db, 'slack', [{ version: 1, up: SCHEMA }]);
  }

  async addPost(inquiryId: string, post: SlackPost, until: number): Promise<void> {
    this.prune();
    this.db
      .prepare(
        'INSERT OR REPLACE INTO slack_posts (inquiry_id, target, body, expires_at) VALUES (?, ?, ?, ?)',
      )
      .run(inquiryId, post.target, JSON.stringify(post), until);
  }

  async posts(inquiryId: string): Promise<SlackPost[]> {
    const rows = this.db
      .prepare('SELECT body FROM slack_posts WHERE inquiry_id = ? AND expires_at > ? ORDER BY target')
      .all(inquiryId, this.now()) as { body: string }[];
    return rows.map((row) => JSON.parse(row.body) as SlackPost);
  }

  async claim(key: string, until: number): Promise<boolean> {
    this.prune();
    const result = this.db
      .prepare(
        `INSERT INTO slack_claims (key, expires_at) VALUES (?, ?)
         ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE slack_claims.expires_at <= ?`,
      )
      .run(key, until, this.now());
    return result.changes === 1;
  }

  private prune(): void {
    const now = this.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    this.db.prepare('DELETE FROM slack_posts WHERE expires_at <= ?').run(now);
    this.db.prepare('DELETE FROM slack_claims WHERE expires_at <= ?').run(now);
  }
}
