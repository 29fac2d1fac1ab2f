import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import {
  MemoryDeliveryLog,
  MemoryDeviceDeliveryLog,
  openStateDatabase,
  RedisDeliveryLog,
  RedisDeviceDeliveryLog,
  RedisInquiryStore,
  SqliteDeliveryLog,
  SqliteDeviceDeliveryLog,
  type StateDatabase,
} from '../src/index.js';
import { runDeliveryLogContract, runDeviceDeliveryLogContract } from '../src/testing/contract-deliveries.js';
import { sampleInquiry } from '../src/testing/index.js';
import { deletePrefix, useRedisServer } from './redis-helpers.js';

const shared = useRedisServer();
const dir = mkdtempSync(join(tmpdir(), 'hitl-deliveries-'));
const databases: StateDatabase[] = [];
afterAll(() => {
  for (const database of databases) database.close();
  rmSync(dir, { recursive: true, force: true });
});
const database = () => {
  const opened = openStateDatabase(join(dir, `${randomUUID()}.db`));
  databases.push(opened);
  return opened.db;
};
/** A client under a fresh prefix, emptied and closed after the test. */
const redisClient = () => {
  const prefix = `test:${randomUUID()}:`;
  const redis = new Redis(shared.server.url);
  shared.cleanups.push(async () => {
    await deletePrefix(shared.server.url, prefix);
    await redis.quit();
  });
  return { redis, prefix };
};

runDeliveryLogContract('memory', async () => new MemoryDeliveryLog());
runDeliveryLogContract('sqlite', async () => new SqliteDeliveryLog(database()));
runDeliveryLogContract('redis', async () => {
  const { redis, prefix } = redisClient();
  return new RedisDeliveryLog(redis, 60_000, prefix);
});

runDeviceDeliveryLogContract('memory', async () => new MemoryDeviceDeliveryLog());
runDeviceDeliveryLogContract('sqlite', async () => new SqliteDeviceDeliveryLog(database()));
// On Redis the entries live in the inquiry's own hash: each inquiry the suite names is created first.
runDeviceDeliveryLogContract('redis', async () => {
  const { redis, prefix } = redisClient();
  const store = new RedisInquiryStore({ redis, prefix });
  shared.cleanups.push(() => store.close());
  const log = new RedisDeviceDeliveryLog({ redis, prefix });
  const created = new Set<string>();
  const ensure = async (inquiryId: string) => {
    if (created.has(inquiryId)) return;
    created.add(inquiryId);
    await store.create(sampleInquiry({ inquiryId }));
  };
  return {
    add: async (entries) => {
      for (const e of entries) await ensure(e.inquiryId);
      await log.add(entries);
    },
    list: (inquiryId) => log.list(inquiryId),
  };
});
