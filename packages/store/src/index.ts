export { newInquiryId } from './ids.js';
export { MemoryInquiryStore } from './memory/memory-store.js';
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
export type {
  CreateOptions,
  CreateResult,
  InquiryStore,
  ListOptions,
  NewInquiry,
  ResolvedListener,
  ResolveResult,
  WaitOptions,
} from './store.js';
