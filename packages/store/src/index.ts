export { newInquiryId } from './ids.js';
export { MemoryInquiryStore } from './memory/memory-store.js';
export { RedisInquiryStore, type RedisStoreOptions } from './redis/redis-store.js';
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
