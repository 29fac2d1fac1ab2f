import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { MemoryRevocationStore, RedisRevocationStore } from '../src/index.js';
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
