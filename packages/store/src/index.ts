export {
  type DeviceRecord,
  type DeviceStore,
  type DeviceTouch,
  type PairingRecord,
  touched,
} from './devices/devices.js';
export { MemoryDeviceStore } from './devices/memory-devices.js';
export { type RedisDeviceOptions, RedisDeviceStore } from './devices/redis-devices.js';
export { SqliteDeviceStore } from './devices/sqlite-devices.js';
export { newInquiryId } from './ids.js';
export { copyLuaFiles } from './lua-kit/copy-lua.js';
export { defineScriptFiles, loadScriptDir, type RawReply, type ScriptFile } from './lua-kit/script-loader.js';
export { readReply, type ScriptReply, ScriptReplyError } from './lua-kit/script-reply.js';
export { MemoryInquiryStore } from './memory/memory-store.js';
export { MemoryPushSubscriptionStore } from './push/memory-push.js';
export type {
  NewPushSubscription,
  PushKeys,
  PushSubscriptionRecord,
  PushSubscriptionStore,
  SavePushResult,
} from './push/push-subscriptions.js';
export { type RedisPushOptions, RedisPushSubscriptionStore } from './push/redis-push.js';
export { sharedVapidKeys } from './push/redis-vapid.js';
export { SqlitePushSubscriptionStore } from './push/sqlite-push.js';
export { connectSharedRedis, type SharedRedisTarget } from './redis/connect.js';
export { RedisDeviceDeliveryLog, type RedisDeviceDeliveryOptions } from './redis/device-deliveries.js';
export { RedisInquiryStore, type RedisStoreOptions } from './redis/redis-store.js';
export { MemoryRevocationStore } from './revocations/memory-revocations.js';
export { type RedisRevocationOptions, RedisRevocationStore } from './revocations/redis-revocations.js';
export {
  emptyRevocations,
  isRevoked,
  type RevocableToken,
  type RevocationList,
  type RevocationStore,
} from './revocations/revocations.js';
export { type SqliteRevocationOptions, SqliteRevocationStore } from './revocations/sqlite-revocations.js';
export { type Migration, migrate } from './sqlite/migrate.js';
export { SqliteInquiryStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export {
  inquiryDatabasePath,
  openStateDatabase,
  type SqliteDatabase,
  type SqliteStatement,
  type StateDatabase,
  type StateHolder,
  StateLockedError,
} from './sqlite/state-database.js';
export type {
  CreateOptions,
  CreateResult,
  InquiryStore,
  ListOptions,
  NewInquiry,
  ResolvedListener,
  ResolveResult,
  VoteResult,
  WaitListener,
  WaitOptions,
  WaitSignal,
} from './store.js';
export { MemoryTaskStore } from './tasks/memory-tasks.js';
export { type RedisTaskOptions, RedisTaskStore } from './tasks/redis-tasks.js';
export { type SqliteTaskOptions, SqliteTaskStore } from './tasks/sqlite-tasks.js';
export {
  DEFAULT_TASK_PAGE,
  type ListTasksOptions,
  type NewTask,
  newTaskId,
  type TaskPage,
  type TaskRecord,
  type TaskStore,
} from './tasks/tasks.js';
