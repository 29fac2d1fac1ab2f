import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeviceStore, openStateDatabase, RedisDeviceStore, SqliteDeviceStore } from '../src/index.js';
import { runDeviceContract, startRedisServer, type TestRedisServer } from '../src/testing/index.js';
import { deletePrefix } from './redis-helpers.js';
import { onRedis, onSqlite } from './store-fixtures.js';

let server: TestRedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

runDeviceContract('memory', async () => {
  const store = new MemoryDeviceStore();
  return { store, cleanup: () => store.close() };
});

runDeviceContract('redis', () =>
  onRedis(server.url, (redis, prefix) => new RedisDeviceStore({ redis, prefix })),
);

runDeviceContract('sqlite', () => onSqlite((db) => new SqliteDeviceStore(db)));

describe('redis pairings and devices', () => {
  it('a pairing key expires with the pairing; a user’s devices sit under the user’s hash tag', async () => {
    const prefix = `test:${randomUUID()}:`;
    const store = new RedisDeviceStore({ redis: server.url, prefix });
    const redis = new Redis(server.url);
    try {
      const now = Date.now();
      await store.createPairing({
        pairingId: 'p1',
        userId: 'u1',
        codeHash: 'abc',
        createdAt: now,
        expiresAt: now + 60_000,
      });
      await store.touchDevice({ userId: 'u1', jti: 'j1', deviceName: 'Phone', at: now });
      expect((await redis.keys(`${prefix}*`)).sort()).toEqual([
        `${prefix}pairing:{p:abc}`,
        `${prefix}user:{u:u1}:devices`,
      ]);
      const ttl = await redis.pttl(`${prefix}pairing:{p:abc}`);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      await store.close();
      await redis.quit();
      await deletePrefix(server.url, prefix);
    }
  });
});

describe('sqlite devices', () => {
  it('a version-1 file is brought forward: its open pairings still claim, without a maker', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hitl-devices-'));
    const path = join(dir, 'hitl.db');
    try {
      const old = openStateDatabase(path);
      // The tables as the first build wrote them, with one open pairing.
      old.db.exec(`
        CREATE TABLE schema_versions (component TEXT PRIMARY KEY, version INTEGER NOT NULL);
        INSERT INTO schema_versions VALUES ('devices', 1);
        CREATE TABLE pairings (code_hash TEXT PRIMARY KEY, pairing_id TEXT NOT NULL,
          user_id TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
        CREATE TABLE devices (user_id TEXT NOT NULL, jti TEXT NOT NULL, device_name TEXT NOT NULL,
          created_at INTEGER NOT NULL, last_seen_at INTEGER NOT NULL, iat INTEGER, exp INTEGER,
          PRIMARY KEY (user_id, jti));
        INSERT INTO pairings VALUES ('h1', 'p1', 'u1', 5, 600005);
      `);
      old.close();
      const reopened = openStateDatabase(path);
      try {
        const store = new SqliteDeviceStore(reopened.db);
        expect(await store.claimPairing('h1', 10)).toEqual({
          pairingId: 'p1',
          userId: 'u1',
          codeHash: 'h1',
          createdAt: 5,
          expiresAt: 600005,
        });
        const made = { pairingId: 'p2', userId: 'u1', codeHash: 'h2', createdAt: 5, expiresAt: 600005 };
        await store.createPairing({ ...made, makerJti: 'j1', makerIat: 7 });
        expect(await store.claimPairing('h2', 10)).toEqual({ ...made, makerJti: 'j1', makerIat: 7 });
      } finally {
        reopened.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('are still there after the state file is closed and opened again (a restart)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hitl-devices-'));
    const path = join(dir, 'hitl.db');
    try {
      const first = openStateDatabase(path);
      await new SqliteDeviceStore(first.db).touchDevice({
        userId: 'u1',
        jti: 'j1',
        deviceName: 'Phone',
        at: 5,
      });
      first.close();
      const second = openStateDatabase(path);
      try {
        expect(await new SqliteDeviceStore(second.db).listDevices('u1')).toEqual([
          { jti: 'j1', userId: 'u1', deviceName: 'Phone', createdAt: 5, lastSeenAt: 5 },
        ]);
      } finally {
        second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
