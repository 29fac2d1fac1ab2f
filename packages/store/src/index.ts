export { newInquiryId } from './ids.js';
export { MemoryInquiryStore } from './memory/memory-store.js';
export { RedisInquiryStore, type RedisStoreOptions } from './redis/redis-store.js';
export { migrate } from './sqlite/migrate.js';
export { SqliteInquiryStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export {
  durably,
  inquiryDatabasePath,
  openStateDatabase,
  type SqliteDatabase,
  type StateDatabase,
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
  WaitOptions,
} from './store.js';
