import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryTaskStore,
  newTaskId,
  openStateDatabase,
  RedisTaskStore,
  SqliteTaskStore,
} from '../src/index.js';
import { runTaskContract, sampleTask, startRedisServer, type TestRedisServer } from '../src/testing/index.js';
import { deletePrefix } from './redis-helpers.js';
import { pairOnRedis, pairOnSqlite } from './store-fixtures.js';

let server: TestRedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

runTaskContract('memory', async () => {
  const store = new MemoryTaskStore();
  return { writer: store, reader: store, cleanup: () => store.close() };
});

runTaskContract('redis', () =>
  // Two stores on their own connections, as two nodes would be.
  pairOnRedis(server.url, (redis, prefix) => new RedisTaskStore({ redis, prefix })),
);

runTaskContract('sqlite', () => pairOnSqlite((db) => new SqliteTaskStore({ db })));

describe('task ids', () => {
  it('are 192 random bits, url-safe, never repeated', () => {
    const ids = Array.from({ length: 1000 }, () => newTaskId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(Buffer.from(id, 'base64url')).toHaveLength(24);
    }
  });
});

describe('sqlite tasks', () => {
  it('are still there after the state file is closed and opened again (a restart)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hitl-tasks-'));
    const path = join(dir, 'hitl.db');
    try {
      const first = openStateDatabase(path);
      const task = await new SqliteTaskStore({ db: first.db }).create(sampleTask('user-kept'));
      first.close();
      const second = openStateDatabase(path);
      try {
        const store = new SqliteTaskStore({ db: second.db });
        expect(await store.get(task.taskId, 'user-kept')).toEqual(task);
        expect((await store.list('user-kept')).tasks).toEqual([task]);
      } finally {
        second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('redis task keys', () => {
  it("live under the user's hash tag and expire with the task", async () => {
    const prefix = `test:${randomUUID()}:`;
    const store = new RedisTaskStore({ redis: server.url, prefix });
    const { Redis } = await import('ioredis');
    const probe = new Redis(server.url);
    try {
      const task = await store.create(sampleTask('user-k', 30_000));
      const key = `${prefix}user:{u:user-k}:task:${task.taskId}`;
      const pttl = await probe.pttl(key);
      expect(pttl).toBeGreaterThan(20_000);
      expect(pttl).toBeLessThanOrEqual(30_000);
      expect(await probe.pttl(`${prefix}user:{u:user-k}:tasks`)).toBeGreaterThan(20_000);
      await store.create(sampleTask('user-k', 120_000));
      expect(await probe.pttl(`${prefix}user:{u:user-k}:tasks`)).toBeGreaterThan(100_000);
      await store.create(sampleTask('user-k', 10_000));
      expect(await probe.pttl(`${prefix}user:{u:user-k}:tasks`)).toBeGreaterThan(100_000);
    } finally {
      await store.close();
      await probe.quit();
      await deletePrefix(server.url, prefix);
    }
  });
});
