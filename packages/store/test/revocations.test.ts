import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isRevoked,
  MemoryRevocationStore,
  openStateDatabase,
  RedisRevocationStore,
  SqliteRevocationStore,
} from '../src/index.js';
import { runRevocationContract, startRedisServer, type TestRedisServer } from '../src/testing/index.js';
import { deletePrefix } from './redis-helpers.js';

let server: TestRedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

runRevocationContract('memory', async (nowSec) => {
  const store = new MemoryRevocationStore(nowSec);
  return { writer: store, reader: store, cleanup: () => store.close() };
});

runRevocationContract('redis', async (nowSec) => {
  const prefix = `test:${randomUUID()}:`;
  // Two stores on their own connections, as two nodes would be.
  const writer = new RedisRevocationStore({ redis: server.url, prefix, nowSec });
  const reader = new RedisRevocationStore({ redis: server.url, prefix, nowSec });
  return {
    writer,
    reader,
    cleanup: async () => {
      await Promise.all([writer.close(), reader.close()]);
      await deletePrefix(server.url, prefix);
    },
  };
});

runRevocationContract('sqlite', async (nowSec) => {
  const dir = await mkdtemp(join(tmpdir(), 'hitl-revocations-'));
  const database = openStateDatabase(join(dir, 'hitl.db'));
  const store = new SqliteRevocationStore({ database, nowSec });
  return {
    writer: store,
    reader: store,
    cleanup: async () => {
      await store.close();
      database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('sqlite revocations', () => {
  it('are still there after the state file is closed and opened again (a restart)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hitl-revocations-'));
    const path = join(dir, 'hitl.db');
    try {
      const first = openStateDatabase(path);
      const before = new SqliteRevocationStore({ database: first });
      await before.revokeToken('jti-kept', Math.floor(Date.now() / 1000) + 3600);
      await before.revokeUser('user-kept', 1_000);
      await before.close();
      first.close();

      const second = openStateDatabase(path);
      try {
        const list = await new SqliteRevocationStore({ database: second }).list();
        expect(isRevoked(list, { sub: 'other', jti: 'jti-kept', iat: 5_000 })).toBe(true);
        expect(isRevoked(list, { sub: 'user-kept', jti: 'fresh', iat: 1_000 })).toBe(true);
        expect(isRevoked(list, { sub: 'user-kept', jti: 'fresh', iat: 1_001 })).toBe(false);
      } finally {
        second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
