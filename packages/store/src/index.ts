export type { AuditChainStore, AuditOutbox, StepAudit } from './audit/audit-chain.js';
export { type ChainHead, canonicalJson, chainAfter, EMPTY_HEAD, entryHash } from './audit/chain-hash.js';
export { type ChainCheck, verifyChain } from './audit/chain-verify.js';
export {
  type AuditKey,
  auditKeyFromSeed,
  checkpointSignatureHolds,
  newAuditKeySeed,
  signCheckpoint,
} from './audit/checkpoint-signature.js';
export { MemoryAuditChain } from './audit/memory-audit.js';
export { RedisAuditChain, type RedisAuditOptions } from './audit/redis-audit.js';
export { SqliteAuditChain } from './audit/sqlite-audit.js';
export { type DecisionClaims, RedisDecisionClaims } from './decisions/claims.js';
export {
  auditContext,
  compareIds,
  type DecisionLog,
  matches,
  type NewDecisionRecord,
  RECORD_ID,
} from './decisions/decision-log.js';
export { MemoryDecisionLog } from './decisions/memory-log.js';
export { RedisDecisionLog, type RedisDecisionLogOptions } from './decisions/redis-log.js';
export { SqliteDecisionLog, type SqliteDecisionLogOptions } from './decisions/sqlite-log.js';
export {
  type DeliveryLog,
  type DeliveryPage,
  type DeliveryQuery,
  MemoryDeliveryLog,
  RedisDeliveryLog,
  SqliteDeliveryLog,
} from './deliveries/delivery-log.js';
export {
  type DeviceDeliveryLog,
  MemoryDeviceDeliveryLog,
  SqliteDeviceDeliveryLog,
} from './deliveries/device-delivery-log.js';
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
export { MemoryPasskeyStore } from './passkeys/memory-passkeys.js';
export {
  type ChallengeRecord,
  counterMovesOn,
  type PasskeyRecord,
  type PasskeyStore,
  type PasskeyUse,
} from './passkeys/passkeys.js';
export { type RedisPasskeyOptions, RedisPasskeyStore } from './passkeys/redis-passkeys.js';
export { SqlitePasskeyStore } from './passkeys/sqlite-passkeys.js';
export { GRANT_RETENTION_MS } from './proxy/grant-rules.js';
export { DEFAULT_PROXY_PREFIX, type ProxyKeys, proxyKeys } from './proxy/keys.js';
export { MemoryProxyStore } from './proxy/memory-proxy-store.js';
export {
  type BeginResult,
  type ConsumeOutcome,
  type DecideOutcome,
  type GrantState,
  type GrantVerdict,
  isAdoptable,
  type NewGrant,
  type Operation,
  type OperationClaim,
  type OperationPatch,
  type OperationState,
  type ProxyStore,
  type StoredCall,
} from './proxy/proxy-store.js';
export { RedisProxyStore, type RedisProxyStoreOptions } from './proxy/redis-proxy-store.js';
export { SqliteProxyStore } from './proxy/sqlite-proxy-store.js';
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
export { MemorySessionStore } from './sessions/memory-sessions.js';
export { type RedisSessionOptions, RedisSessionStore } from './sessions/redis-sessions.js';
export {
  MAX_SESSIONS_PER_USER,
  type McpSession,
  type McpSessionStore,
  newSessionId,
} from './sessions/sessions.js';
export { type SqliteSessionOptions, SqliteSessionStore } from './sessions/sqlite-sessions.js';
export { RedisSlackStore } from './slack/redis-slack-store.js';
export { MemorySlackStore, type SlackPost, type SlackStore } from './slack/slack-store.js';
export { SqliteSlackStore } from './slack/sqlite-slack-store.js';
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
export { MemoryStandingStore } from './standing/memory-standing.js';
export { type RedisStandingOptions, RedisStandingStore } from './standing/redis-standing.js';
export { SqliteStandingStore } from './standing/sqlite-standing.js';
export {
  covers,
  type NewStandingApproval,
  newStandingId,
  type StandingApproval,
  type StandingCall,
  type StandingFilter,
  type StandingStore,
} from './standing/standing.js';
export type {
  CreateOptions,
  CreateResult,
  InquiryStore,
  ListOptions,
  NewInquiry,
  ResolvedListener,
  ResolveResult,
  VoteResult,
  WaitOptions,
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
