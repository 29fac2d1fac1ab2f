import type { SqliteDatabase, SqliteStatement } from './state-database.js';

/**
 * Runs writes in `BEGIN IMMEDIATE` transactions over statements prepared once. libsql's
 * `db.transaction(fn)` builds four wrapper functions on every call and parses `BEGIN`/`COMMIT` again
 * each time; the inquiry store's create and resolve run one transaction per answer, on its path.
 * Not reentrant: a transaction inside another fails, as with `db.transaction`.
 */
export class ImmediateTransactions {
  private readonly begin: SqliteStatement;
  private readonly commit: SqliteStatement;
  private readonly rollback: SqliteStatement;

  constructor(private readonly db: SqliteDatabase) {
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  /** Runs `write` in one transaction: committed when it returns, rolled back when it (or the commit) throws. */
  run<T>(write: () => T): T {
    this.begin.run();
    try {
      const result = write();
      this.commit.run();
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.rollback.run();
      throw error;
    }
  }
}
