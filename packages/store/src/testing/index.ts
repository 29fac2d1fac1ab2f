export { runStoreContract } from './contract.js';
export {
  answered,
  eventually,
  type MakeStore,
  type MakeStoreOptions,
  type StoreFixture,
  sampleInquiry,
  sleep,
  timedOut,
} from './fixtures.js';
export { startRedisCluster, type TestRedisCluster } from './redis-cluster.js';
export { type RedisServerOptions, startRedisServer, type TestRedisServer } from './redis-server.js';
