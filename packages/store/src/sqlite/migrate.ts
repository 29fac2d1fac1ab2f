import type { SqliteDatabase } from './state-database.js';

/**
 * Brings one component's tables (inquiries, the decision log, ...) in a shared state file to
 * `version`: runs `schema` (idempotent DDL) and records the version in `schema_versions`, in one
 * transaction. Each component keeps its own version, so they can share a file and evolve apart.
 *
 * @throws Error when the file was written by a newer build (a version above `version`).
 */
export function migrate(db: SqliteDatabase, component: string, version: number, schema: string): void {
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
    db.exec(schema);
    db.prepare('INSERT OR REPLACE INTO schema_versions (component, version) VALUES (?, ?)').run(
      component,
      version,
    );
  }).immediate();
}
