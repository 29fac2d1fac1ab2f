export { runStoreContract } from './contract.js';
export { type DeviceFixture, type MakeDevices, runDeviceContract } from './contract-devices.js';
export { type MakePushStore, type PushFixture, runPushSubscriptionContract } from './contract-push.js';
export {
  type MakeRevocations,
  type RevocationFixture,
  runRevocationContract,
} from './contract-revocations.js';
export { type MakeTasks, runTaskContract, sampleTask, type TaskFixture } from './contract-tasks.js';
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
export {
  freePort,
  type RedisServerOptions,
  startRedisServer,
  type TestRedisServer,
} from './redis-server.js';
