export { runStoreContract } from './contract.js';
export {
  type AuditFixture,
  type AuditNode,
  auditRecord,
  type MakeAudit,
  runAuditContract,
} from './contract-audit.js';
export {
  type MakeDeliveryLog,
  type MakeDeviceDeliveryLog,
  runDeliveryLogContract,
  runDeviceDeliveryLogContract,
} from './contract-deliveries.js';
export { type DeviceFixture, type MakeDevices, runDeviceContract } from './contract-devices.js';
export { runProxyStoreContract } from './contract-proxy.js';
export { type MakePushStore, type PushFixture, runPushSubscriptionContract } from './contract-push.js';
export {
  type MakeRevocations,
  type RevocationFixture,
  runRevocationContract,
} from './contract-revocations.js';
export {
  type MakeSessions,
  runSessionContract,
  type SessionFixture,
  sampleSession,
} from './contract-sessions.js';
export { type MakeStanding, runStandingContract, type StandingFixture } from './contract-standing.js';
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
/** An audit key for test nodes (`HITL_AUDIT_KEY`): a node on Redis refuses to start without one. */
export const TEST_AUDIT_KEY = 'dGVzdC1hdWRpdC1rZXktb2YtMzItYnl0ZXMtZXhhY3Q';
export { type MakePasskeys, type PasskeyFixture, runPasskeyContract } from './contract-passkeys.js';
