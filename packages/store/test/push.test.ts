import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryPushSubscriptionStore,
  openStateDatabase,
  RedisPushSubscriptionStore,
  SqlitePushSubscriptionStore,
  sharedVapidKeys,
} from '../src/index.js';
import {
  eventually,
  runPushSubscriptionContract,
  startRedisServer,
  type TestRedisServer,
} from '../src/testing/index.js';
import { deletePrefix } from './redis-helpers.js';
import { onRedis, onSqlite } from './store-fixtures.js';

let server: TestRedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

runPushSubscriptionContract('memory', async () => {
  const store = new MemoryPushSubscriptionStore();
  return { store, cleanup: () => store.close() };
});

runPushSubscriptionContract('redis', () =>
  onRedis(server.url, (redis, prefix) => new RedisPushSubscriptionStore({ redis, prefix })),
);

runPushSubscriptionContract('sqlite', () => onSqlite((db) => new SqlitePushSubscriptionStore(db)));

describe('redis push subscriptions for sending, on several instances', () => {
  const open = (prefix: string) => new RedisPushSubscriptionStore({ redis: server.url, prefix });
  const record = (n: number) => ({
    userId: 'u1',
    endpoint: `https://push.example/send/${n}`,
    keys: { p256dh: `BP${String(n).padStart(85, 'x')}`, auth: 'a'.repeat(22) },
    at: 1000 + n,
  });

  it('keeps a list until a change is heard, from any instance; forgets all when its feed drops', async () => {
    const prefix = `test:${randomUUID()}:`;
    const [a, b] = [open(prefix), open(prefix)];
    const admin = new Redis(server.url);
    try {
      await eventually(async () => {
        await b.listForPush('u1');
        return (await admin.pubsub('NUMSUB', `${prefix}push:changed`))[1] === 2;
      });
      expect(await b.listForPush('u1')).toEqual([]);
      const saved = await a.save(record(1), 20);
      await eventually(async () => (await b.listForPush('u1')).length === 1);
      expect((await b.listForPush('u1'))[0]?.id).toBe(saved.id);
      // Kept: a record written behind the stores' backs (no message) is not seen for sending...
      await admin.hset(`${prefix}user:{u:u1}:push`, 'sneaked', JSON.stringify({ id: 'sneaked' }));
      expect((await b.listForPush('u1')).map((r) => r.id)).toEqual([saved.id]);
      expect((await b.list('u1')).map((r) => r.id).sort()).toEqual([saved.id, 'sneaked'].sort());
      // ...until a change is heard from another instance.
      expect(await a.remove('u1', saved.id)).toBe(true);
      await eventually(async () => (await b.listForPush('u1')).map((r) => r.id).join() === 'sneaked');
      // A dropped subscription forgets everything (changes may have been missed meanwhile).
      await admin.hdel(`${prefix}user:{u:u1}:push`, 'sneaked');
      expect((await b.listForPush('u1')).map((r) => r.id)).toEqual(['sneaked']);
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      await eventually(async () => (await b.listForPush('u1')).length === 0);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await deletePrefix(server.url, prefix);
      admin.disconnect();
    }
  });
});

const subscription = {
  userId: 'u1',
  endpoint: 'https://push.example/send/kept',
  keys: { p256dh: `BP${'k'.repeat(85)}`, auth: 'a'.repeat(22) },
  deviceName: 'phone',
  at: 1000,
};

describe('sqlite push subscriptions', () => {
  it('are still there after the state file is closed and opened again (a restart)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hitl-push-'));
    const path = join(dir, 'hitl.db');
    try {
      const first = openStateDatabase(path);
      const { id } = await new SqlitePushSubscriptionStore(first.db).save(subscription, 20);
      first.close();
      const second = openStateDatabase(path);
      try {
        const list = await new SqlitePushSubscriptionStore(second.db).list('u1');
        expect(list.map((record) => [record.id, record.endpoint, record.deviceName])).toEqual([
          [id, subscription.endpoint, 'phone'],
        ]);
      } finally {
        second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('redis push subscriptions and VAPID keys', () => {
  it("keeps a user's subscriptions under the user's hash tag (one Cluster slot)", async () => {
    const prefix = `test:${randomUUID()}:`;
    const store = new RedisPushSubscriptionStore({ redis: server.url, prefix });
    const redis = new Redis(server.url);
    try {
      await store.save(subscription, 20);
      const keys = await redis.keys(`${prefix}*`);
      expect(keys.sort()).toEqual([
        `${prefix}user:{u:u1}:push`,
        `${prefix}user:{u:u1}:push:endpoints`,
        `${prefix}user:{u:u1}:push:order`,
      ]);
    } finally {
      await store.close();
      await redis.quit();
      await deletePrefix(server.url, prefix);
    }
  });

  it('the first node’s key pair wins; later nodes read it', async () => {
    const prefix = `test:${randomUUID()}:`;
    const one = new Redis(server.url);
    const two = new Redis(server.url);
    try {
      const [a, b] = await Promise.all([
        sharedVapidKeys(one, '{"pair":"one"}', prefix),
        sharedVapidKeys(two, '{"pair":"two"}', prefix),
      ]);
      expect(a).toBe(b);
      expect(await sharedVapidKeys(one, '{"pair":"three"}', prefix)).toBe(a);
    } finally {
      await Promise.all([one.quit(), two.quit()]);
      await deletePrefix(server.url, prefix);
    }
  });
});
