import { Cluster, type Redis, type Result } from 'ioredis';
import type { RawReply } from '../lua-kit/script-loader.js';
import { readReply } from '../lua-kit/script-reply.js';
import { RedisBackedStore, type RedisStoreOptions } from '../redis/redis-backed-store.js';
import { defineScripts } from '../redis/scripts.js';
import { PushListCache } from './push-list-cache.js';
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

export type RedisPushOptions = RedisStoreOptions;

/**
 * Push subscriptions shared by every node: per user a hash of records, a sorted set by last save
 * (the cap drops its head) and an endpoint index, all under the user's hash tag `{u:<userId>}`, so
 * each save or delete is one Lua script in one Cluster slot. Each change is also published (the
 * user's id on `<prefix>push:changed`): every instance keeps the lists it read for sending
 * (`listForPush`) until it hears of a change, so a new inquiry costs no read for users it knows.
 */
export class RedisPushSubscriptionStore extends RedisBackedStore implements PushSubscriptionStore {
  private readonly channel: string;
  private readonly cache = new PushListCache();
  /** Hears changes; the cache is used only while its subscription is known to be live. */
  private readonly subscriber: Redis | Cluster;
  private live = false;

  constructor(options: RedisPushOptions) {
    super(options);
    this.channel = `${this.prefix}push:changed`;
    defineScripts(this.redis);
    this.subscriber = this.redis instanceof Cluster ? this.redis.duplicate() : this.redis.duplicate();
    this.subscriber.on('error', () => {});
    this.subscriber.on('message', (from: string, userId: string) => {
      if (from === this.channel) this.cache.changed(userId);
    });
    // Messages may have been missed while the connection was down: forget, and subscribe again
    // ('ready' comes before ioredis re-sends its own SUBSCRIBE; ours proves the subscription live).
    this.subscriber.on('ready', () => void this.subscribe());
    this.subscriber.on('close', () => {
      this.live = false;
      this.cache.clear();
    });
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
    await this.changed(userId);
    return { id: id as string, created: code === Code.Added, dropped };
  }

  async list(userId: string): Promise<PushSubscriptionRecord[]> {
    const records = await this.redis.hvals(this.keys.pushSubscriptions(userId));
    return records.map((json) => JSON.parse(json) as PushSubscriptionRecord).sort(byAge);
  }

  listForPush(userId: string): Promise<PushSubscriptionRecord[]> {
    return this.live ? this.cache.through(userId, (id) => this.list(id)) : this.list(userId);
  }

  remove(userId: string, id: string): Promise<boolean> {
    return this.removeBy(userId, 'id', id);
  }

  removeEndpoint(userId: string, endpoint: string): Promise<boolean> {
    return this.removeBy(userId, 'endpoint', endpoint);
  }

  async close(): Promise<void> {
    this.live = false;
    this.subscriber.disconnect();
    await this.release();
  }

  private async removeBy(userId: string, by: 'id' | 'endpoint', value: string): Promise<boolean> {
    const reply = await this.redis.hitlPushRemove(...this.userKeys(userId), by, value);
    const removed = readReply('push-remove-3', reply, [0, 1]).code === 1;
    if (removed) await this.changed(userId);
    return removed;
  }

  /** This instance forgets the user's list at once; the others when the message reaches them. */
  private async changed(userId: string): Promise<void> {
    this.cache.changed(userId);
    await this.redis.publish(this.channel, userId);
  }

  private async subscribe(): Promise<void> {
    this.live = false;
    this.cache.clear();
    try {
      await this.subscriber.subscribe(this.channel);
      this.live = true;
    } catch {
      // The connection dropped again; the next 'ready' repeats this.
    }
  }

  private userKeys(userId: string): [string, string, string] {
    return [
      this.keys.pushSubscriptions(userId),
      this.keys.pushOrder(userId),
      this.keys.pushEndpoints(userId),
    ];
  }
}
