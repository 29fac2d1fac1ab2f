import { type Cluster, Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { storeKeys } from '../src/redis/keys.js';
import { startRedisServer, type TestRedisServer } from '../src/testing/index.js';

/** Deletes every key under `prefix` (tests each write under a unique prefix). */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

/** One redis-server for a test file, an admin client on it, and cleanups run after each test. */
export interface SharedRedis {
  server: TestRedisServer;
  admin: Redis;
  /** Run (last first) after each test: closing its clients, deleting its prefix. */
  cleanups: (() => Promise<unknown>)[];
}

/** Starts a redis-server for the file's tests (stopped after them) and runs each test's cleanups. */
export function useRedisServer(): SharedRedis {
  const shared = { cleanups: [] } as unknown as SharedRedis;
  beforeAll(async () => {
    shared.server = await startRedisServer();
    shared.admin = new Redis(shared.server.url);
  });
  afterEach(async () => {
    for (const cleanup of shared.cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await shared.admin?.quit();
    await shared.server?.stop();
  });
  return shared;
}

/** Calls per command so far on a server (INFO commandstats; scripts' calls included). */
export async function commandCounts(admin: Redis): Promise<Record<string, number>> {
  const info = await admin.info('commandstats');
  const counts: Record<string, number> = {};
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    counts[match[1] as string] = Number(match[2]);
  return counts;
}

/** How many nodes an inquiry's `waiters` field lists (the Redis store's record of who waits on it). */
export async function listedWaiters(
  redis: Redis | Cluster,
  prefix: string,
  inquiryId: string,
): Promise<number> {
  const field = await redis.hget(storeKeys(prefix).inquiry(inquiryId), 'waiters');
  return field ? field.split(',').length : 0;
}
