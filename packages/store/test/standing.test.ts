import { afterAll, beforeAll } from 'vitest';
import { MemoryStandingStore, RedisStandingStore, SqliteStandingStore } from '../src/index.js';
import { runStandingContract, startRedisServer, type TestRedisServer } from '../src/testing/index.js';
import { onRedis, onSqlite } from './store-fixtures.js';

let server: TestRedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

runStandingContract('memory', async () => {
  const store = new MemoryStandingStore();
  return { store, cleanup: () => store.close() };
});

runStandingContract('redis', () =>
  onRedis(server.url, (redis, prefix) => new RedisStandingStore({ redis, prefix })),
);

runStandingContract('sqlite', () => onSqlite((db) => new SqliteStandingStore(db)));
