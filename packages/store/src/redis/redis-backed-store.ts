import type { Cluster, Redis } from 'ioredis';
import { openClient } from './connection.js';
import { type StoreKeys, storeKeys } from './keys.js';

/** How a Redis-backed store is given its connection. */
export interface RedisStoreOptions {
  /** A client the caller owns (not closed by `close()`), or a URL for one this store opens and owns. */
  redis: Redis | Cluster | string;
  /** Key prefix, `hitl:` by default (tests use a unique one). */
  prefix?: string;
}

/**
 * The connection every Redis-backed store holds: the client (opened with {@link openClient} when
 * given a URL), its key prefix and key names, and how to let the client go (quit only one it opened).
 */
export abstract class RedisBackedStore {
  protected readonly redis: Redis | Cluster;
  protected readonly prefix: string;
  protected readonly keys: StoreKeys;
  private readonly owned: boolean;

  constructor(options: RedisStoreOptions) {
    this.owned = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? openClient(options.redis) : options.redis;
    this.prefix = options.prefix ?? 'hitl:';
    this.keys = storeKeys(this.prefix);
  }

  /** Quits the client if this store opened it; a caller's client stays open. */
  protected async release(): Promise<void> {
    if (this.owned) await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
