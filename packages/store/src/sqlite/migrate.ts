import type { SqliteDatabase } from './state-database.js';

/**
 * One step of a component's tables: `up` brings them from the version before to `version`. A step
 * runs once per file, so it may hold any DDL (`ALTER TABLE ... ADD COLUMN`, a backfill, a `DROP`).
 */
export interface Migration {
  version: number;
  up: string;
}

/**
 * Brings one component's tables (inquiries, the decision log, ...) in a shared state file to the last
 * step's version: runs, in order, the steps above the version the file records (all of them on a new
 * file), and records the new version in `schema_versions`, in one transaction. Each component keeps
 * its own version, so they can share a file and evolve apart.
 *
 * @param migrations the component's steps, versions ascending from 1
 * @throws Error when the file was written by a newer build (a version above the last step's)
 */
export function migrate(db: SqliteDatabase, component: string, migrations: readonly Migration[]): void {
  checkOrder(component, migrations);
  const version = migrations.at(-1)?.version ?? 0;
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL)',
  );
  const row = db.prepare('SELECT version FROM schema_versions WHERE component = ?').get(component) as
    | { version: number }
    | undefined;
  const found = row?.version ?? 0;
  if (found > version) {
    throw new Error(
      `${db.name}: ${component} tables are at version ${found}; this build knows up to ${version}`,
    );
  }
  if (found === version) return;
  db.transaction(() => {
    for (const step of migrations) if (step.version > found) db.exec(step.up);
    db.prepare('INSERT OR REPLACE INTO schema_versions (component, version) VALUES (?, ?)').run(
      component,
      version,
    );
  }).immediate();
}

/** @throws Error when the steps are not numbered 1, 2, 3... (a programming error, caught by any test). */
function checkOrder(component: string, migrations: readonly Migration[]): void {
  migrations.forEach((step, index) => {
    if (step.version !== index + 1) {
      throw new Error(
        `${component} migrations must be numbered 1, 2, 3...: step ${index} is ${step.version}`,
      );
    }
  });
}
