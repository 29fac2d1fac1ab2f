import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import {
  MemoryPasskeyStore,
  openStateDatabase,
  RedisPasskeyStore,
  SqlitePasskeyStore,
} from '../src/index.js';
import { runPasskeyContract } from '../src/testing/index.js';
import { deletePrefix, useRedisServer } from './redis-helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

runPasskeyContract('memory', async () => {
  const store = new MemoryPasskeyStore();
  return { store, cleanup: () => store.close() };
});

runPasskeyContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-passkeys-'));
  dirs.push(dir);
  const database = openStateDatabase(join(dir, 'hitl.db'));
  return { store: new SqlitePasskeyStore(database.db), cleanup: async () => database.close() };
});

const shared = useRedisServer();

runPasskeyContract('redis', async () => {
  const prefix = `test:${randomUUID()}:`;
  const clients: Redis[] = [];
  const open = () => {
    const redis = new Redis(shared.server.url);
    clients.push(redis);
    return new RedisPasskeyStore({ redis, prefix });
  };
  return {
    store: open(),
    peer: async () => open(),
    cleanup: async () => {
      await deletePrefix(shared.server.url, prefix);
      await Promise.all(clients.map((client) => client.quit()));
    },
  };
});
