import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  MemorySessionStore,
  newSessionId,
  openStateDatabase,
  RedisSessionStore,
  SqliteSessionStore,
} from '../src/index.js';
import { runSessionContract, sampleSession } from '../src/testing/index.js';
import { deletePrefix, useRedisServer } from './redis-helpers.js';
import { pairOnRedis, pairOnSqlite } from './store-fixtures.js';

const redis = useRedisServer();

runSessionContract('memory', async () => {
  const store = new MemorySessionStore();
  return { writer: store, reader: store, cleanup: () => store.close() };
});

runSessionContract('redis', () =>
  // Two stores on their own connections, as two nodes would be.
  pairOnRedis(redis.server.url, (redis, prefix) => new RedisSessionStore({ redis, prefix })),
);

runSessionContract('sqlite', () => pairOnSqlite((db) => new SqliteSessionStore({ db })));

describe('session ids', () => {
  it('are 192 random bits of visible ASCII, never repeated', () => {
    const ids = Array.from({ length: 1000 }, () => newSessionId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});

describe('sqlite sessions', () => {
  it('are still there after the state file is closed and opened again (a restart)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hitl-sessions-'));
    const path = join(dir, 'hitl.db');
    try {
      const first = openStateDatabase(path);
      const session = sampleSession('user-kept');
      await new SqliteSessionStore({ db: first.db }).create(session);
      first.close();
      const second = openStateDatabase(path);
      try {
        expect(await new SqliteSessionStore({ db: second.db }).get(session.sessionId, 'user-kept')).toEqual(
          session,
        );
      } finally {
        second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('redis session keys', () => {
  it("live under the user's hash tag, expire with the session and move with a renewal", async () => {
    const prefix = `test:${randomUUID()}:`;
    const store = new RedisSessionStore({ redis: redis.server.url, prefix });
    const probe = new Redis(redis.server.url);
    try {
      const session = sampleSession('user-k', 30_000);
      await store.create(session);
      const key = `${prefix}user:{u:user-k}:mcp-session:${session.sessionId}`;
      expect(await probe.pttl(key)).toBeGreaterThan(20_000);
      expect(await probe.pttl(key)).toBeLessThanOrEqual(30_000);
      expect(await probe.zscore(`${prefix}user:{u:user-k}:mcp-sessions`, session.sessionId)).toBe(
        String(session.expiresAt),
      );
      await store.renew(session.sessionId, 'user-k', Date.now() + 120_000);
      expect(await probe.pttl(key)).toBeGreaterThan(100_000);
      expect(await probe.pttl(`${prefix}user:{u:user-k}:mcp-sessions`)).toBeGreaterThan(100_000);
    } finally {
      await store.close();
      await probe.quit();
      await deletePrefix(redis.server.url, prefix);
    }
  });
});
