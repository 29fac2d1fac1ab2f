import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { RedisInquiryStore, type RedisStoreOptions } from '../src/index.js';
import { runStoreContract, startRedisServer, type TestRedisServer } from '../src/testing/index.js';
import { deletePrefix, listedWaiters } from './redis-helpers.js';

let server: TestRedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

runStoreContract('redis', async (options) => {
  const prefix = `test:${randomUUID()}:`;
  const clients: Redis[] = [];
  const stores: RedisInquiryStore[] = [];
  // Each instance on its own connection, as two nodes would be.
  const open = (extra: Partial<RedisStoreOptions> = {}) => {
    const redis = new Redis(server.url, { maxRetriesPerRequest: 2 });
    clients.push(redis);
    const store = new RedisInquiryStore({ redis, prefix, ...options, ...extra });
    stores.push(store);
    return store;
  };
  return {
    store: open(),
    peer: async () => open(),
    listedWaiters: (inquiryId) => listedWaiters(clients[0]!, prefix, inquiryId),
    cleanup: async () => {
      await Promise.all(stores.map((store) => store.close()));
      await deletePrefix(server.url, prefix);
      await Promise.all(clients.map((client) => client.quit()));
    },
  };
});
