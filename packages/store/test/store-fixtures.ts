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

/** Two handles on one backend, as the task and session contracts take them. */
export interface HandlePair<S> {
  writer: S;
  reader: S;
  cleanup(): Promise<void>;
}

/** Two stores on their own connections to the test Redis (two nodes' views), under one fresh prefix. */
export async function pairOnRedis<S extends { close(): Promise<void> }>(
  url: string,
  make: (url: string, prefix: string) => S,
): Promise<HandlePair<S>> {
  const prefix = `test:${randomUUID()}:`;
  const writer = make(url, prefix);
  const reader = make(url, prefix);
  return {
    writer,
    reader,
    cleanup: async () => {
      await Promise.all([writer.close(), reader.close()]);
      await deletePrefix(url, prefix);
    },
  };
}

/** One store on a fresh SQLite state file, as both handles (one node). */
export async function pairOnSqlite<S extends { close(): Promise<void> }>(
  make: (db: SqliteDatabase) => S,
): Promise<HandlePair<S>> {
  const { store, cleanup } = await onSqlite(make);
  return { writer: store, reader: store, cleanup };
}
