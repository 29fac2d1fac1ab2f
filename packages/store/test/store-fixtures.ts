import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStateDatabase, type SqliteDatabase } from '../src/index.js';
import { deletePrefix } from './redis-helpers.js';

/** A store a contract suite opens, with its cleanup. */
export interface Fixture<S extends { close(): Promise<void> }> {
  store: S;
  cleanup(): Promise<void>;
}

/** A store on the test Redis under a fresh key prefix, every key of which is deleted afterwards. */
export async function onRedis<S extends { close(): Promise<void> }>(
  url: string,
  make: (url: string, prefix: string) => S,
): Promise<Fixture<S>> {
  const prefix = `test:${randomUUID()}:`;
  const store = make(url, prefix);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await deletePrefix(url, prefix);
    },
  };
}

/** A store on a fresh SQLite state file in a temporary folder, removed afterwards. */
export async function onSqlite<S extends { close(): Promise<void> }>(
  make: (db: SqliteDatabase) => S,
): Promise<Fixture<S>> {
  const dir = await mkdtemp(join(tmpdir(), 'hitl-store-'));
  const database = openStateDatabase(join(dir, 'hitl.db'));
  const store = make(database.db);
  return {
    store,
    cleanup: async () => {
      await store.close();
      database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
