import { Cluster, type Redis } from 'ioredis';
import { RedisBackedStore, type RedisStoreOptions } from '../redis/redis-backed-store.js';
import type { RevocationList, RevocationStore } from './revocations.js';

export interface RedisRevocationOptions extends RedisStoreOptions {
  nowSec?: () => number;
}

/**
 * Revocations shared by every node: two hashes (one slot, `{revoked}`) and a pub/sub channel that
 * tells every node to re-read them. `hitl:{revoked}:tokens` maps jti → exp (0: none),
 * `hitl:{revoked}:users` maps user → the last second of issue that is revoked.
 */
export class RedisRevocationStore extends RedisBackedStore implements RevocationStore {
  private readonly subscriber: Redis | Cluster;
  private readonly tokensKey: string;
  private readonly usersKey: string;
  private readonly channel: string;
  private readonly listeners = new Set<() => void>();
  private readonly nowSec: () => number;
  private subscribed: Promise<void> | undefined;
  private closed = false;

  constructor(options: RedisRevocationOptions) {
    super(options);
    this.tokensKey = `${this.prefix}{revoked}:tokens`;
    this.usersKey = `${this.prefix}{revoked}:users`;
    this.channel = `${this.prefix}revocations`;
    this.nowSec = options.nowSec ?? (() => Math.floor(Date.now() / 1000));
    const source = this.redis;
    this.subscriber = source instanceof Cluster ? source.duplicate() : source.duplicate();
    this.subscriber.on('error', () => {});
    this.subscriber.on('message', (from: string) => {
      if (from === this.channel) this.changed();
    });
    // After a reconnect ioredis subscribes again; a change published meanwhile was lost, so
    // listeners re-read the list.
    this.subscriber.on('ready', () => {
      if (this.subscribed && !this.closed) this.changed();
    });
  }

  async revokeToken(jti: string, expiresAtSec = 0): Promise<void> {
    await this.redis.hset(this.tokensKey, jti, String(expiresAtSec));
    await this.redis.publish(this.channel, 'token');
  }

  async revokeUser(userId: string, issuedUpToSec: number): Promise<void> {
    const known = Number((await this.redis.hget(this.usersKey, userId)) ?? 0);
    if (issuedUpToSec > known) await this.redis.hset(this.usersKey, userId, String(issuedUpToSec));
    await this.redis.publish(this.channel, 'user');
  }

  async list(): Promise<RevocationList> {
    const [tokens, users] = await Promise.all([
      this.redis.hgetall(this.tokensKey),
      this.redis.hgetall(this.usersKey),
    ]);
    const now = this.nowSec();
    const live = new Map<string, number>();
    const expired: string[] = [];
    for (const [jti, exp] of Object.entries(tokens)) {
      const seconds = Number(exp);
      if (seconds > 0 && seconds < now) expired.push(jti);
      else live.set(jti, seconds);
    }
    if (expired.length > 0) await this.redis.hdel(this.tokensKey, ...expired).catch(() => undefined);
    return {
      tokens: live,
      users: new Map(Object.entries(users).map(([user, second]) => [user, Number(second)])),
    };
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Settles once the subscription is live; retried on the next call after a failure. */
  ready(): Promise<void> {
    if (this.subscribed) return this.subscribed;
    const subscribed = this.subscriber.subscribe(this.channel).then(() => undefined);
    subscribed.catch(() => {
      if (this.subscribed === subscribed) this.subscribed = undefined;
    });
    this.subscribed = subscribed;
    return subscribed;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.subscriber.disconnect();
    await this.release();
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
