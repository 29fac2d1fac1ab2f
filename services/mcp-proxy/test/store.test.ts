import { randomUUID } from 'node:crypto';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll } from 'vitest';
import { MemoryProxyStore } from '../src/store/memory-proxy-store.js';
import { RedisProxyStore } from '../src/store/redis-proxy-store.js';
import { runProxyStoreContract } from './store-contract.js';

let redis: TestRedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

runProxyStoreContract('memory', async () => new MemoryProxyStore());
runProxyStoreContract(
  'redis',
  async () => new RedisProxyStore({ redis: redis.url, prefix: `test:${randomUUID()}:proxy:` }),
);
