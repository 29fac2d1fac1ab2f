import type { Cluster, Redis, Result } from 'ioredis';
import type { RawReply } from '../lua-kit/script-loader.js';
import { readReply } from '../lua-kit/script-reply.js';
import { openClient } from '../redis/connection.js';
import { type StoreKeys, storeKeys } from '../redis/keys.js';
import { defineScripts } from '../redis/scripts.js';
import {
  byAge,
  type NewPushSubscription,
  newPushSubscriptionId,
  type PushSubscriptionRecord,
  type PushSubscriptionStore,
  type SavePushResult,
} from './push-subscriptions.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/push-save-3.lua */
    hitlPushSave(
      subscriptions: string,
      order: string,
      endpoints: string,
      endpoint: string,
      newId: string,
      recordJson: string,
      now: number,
      maxPerUser: number,
    ): Result<RawReply, Context>;
    /** src/lua/push-remove-3.lua */
    hitlPushRemove(
      subscriptions: string,
      order: string,
      endpoints: string,
      by: 'id' | 'endpoint',
      value: string,
    ): Result<RawReply, Context>;
  }
}

enum Code {
  Updated = 0,
  Added = 1,
}

export interface RedisPushOptions {
  /** A client the caller owns (not closed by `close()`), or a URL for one this store owns. */
  redis: Redis | Cluster | string;
  /** Key prefix, `hitl:` by default (tests use a unique one). */
  prefix?: string;
}

/**
 * Push subscriptions shared by every node: per user a hash of records, a sorted set by last save
 * (the cap drops its head) and an endpoint index, all under the user's hash tag `{u:<userId>}`, so
 * each save or delete is one Lua script in one Cluster slot.
 */
export class RedisPushSubscriptionStore implements PushSubscriptionStore {
  private readonly redis: Redis | Cluster;
  private readonly owned: boolean;
  private readonly keys: StoreKeys;

  constructor(options: RedisPushOptions) {
    this.owned = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? openClient(options.redis) : options.redis;
    this.keys = storeKeys(options.prefix ?? 'hitl:');
    defineScripts(this.redis);
  }

  async save(subscription: NewPushSubscription, maxPerUser: number): Promise<SavePushResult> {
    const { userId, endpoint, keys, deviceName, token, at } = subscription;
    const record = {
      userId,
      endpoint,
      keys,
      ...(deviceName !== undefined ? { deviceName } : {}),
      ...(token !== undefined ? { token } : {}),
    };
    const reply = await this.redis.hitlPushSave(
      ...this.userKeys(userId),
      endpoint,
      newPushSubscriptionId(),
      JSON.stringify(record),
      at,
      maxPerUser,
    );
    const { code, fields } = readReply('push-save-3', reply, [Code.Added, Code.Updated], Code);
    const [id, ...dropped] = fields as string[];
    return { id: id as string, created: code === Code.Added, dropped };
  }

  async list(userId: string): Promise<PushSubscriptionRecord[]> {
    const records = await this.redis.hvals(this.keys.pushSubscriptions(userId));
    return records.map((json) => JSON.parse(json) as PushSubscriptionRecord).sort(byAge);
  }

  remove(userId: string, id: string): Promise<boolean> {
    return this.removeBy(userId, 'id', id);
  }

  removeEndpoint(userId: string, endpoint: string): Promise<boolean> {
    return this.removeBy(userId, 'endpoint', endpoint);
  }

  async close(): Promise<void> {
    if (this.owned) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async removeBy(userId: string, by: 'id' | 'endpoint', value: string): Promise<boolean> {
    const reply = await this.redis.hitlPushRemove(...this.userKeys(userId), by, value);
    return readReply('push-remove-3', reply, [0, 1]).code === 1;
  }

  private userKeys(userId: string): [string, string, string] {
    return [
      this.keys.pushSubscriptions(userId),
      this.keys.pushOrder(userId),
      this.keys.pushEndpoints(userId),
    ];
  }
}
