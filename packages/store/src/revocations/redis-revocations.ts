import { Cluster, Redis } from 'ioredis';
import type { RevocationList, RevocationStore } from './revocations.js';

export interface RedisRevocationOptions {
  /** A client or a URL; a client is shared (not closed by `close()`), a URL is owned. */
  redis: Redis | Cluster | string;
  /** Key prefix, `hitl:` by default (tests use a unique one). */
  prefix?: string;
  nowSec?: () => number;
}

/**
 * Revocations shared by every node: two hashes (one slot, `{revoked}`) and a pub/sub channel that
 * tells every node to re-read them. `hitl:{revoked}:tokens` maps jti → exp (0: none),
 * `hitl:{revoked}:users` maps user → the last second of issue that is revoked.
 */
export class RedisRevocationStore implements RevocationStore {
  private readonly redis: Redis | Cluster;
  private readonly owned: boolean;
  private readonly subscriber: Redis | Cluster;
  private readonly tokensKey: string;
  private readonly usersKey: string;
  private readonly channel: string;
  private readonly listeners = new Set<() => void>();
  private readonly nowSec: () => number;
  private subscribed: Promise<void> | undefined;
  private closed = false;

  constructor(options: RedisRevocationOptions) {
    const prefix = options.prefix ?? 'hitl:';
    this.owned = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? new Redis(options.redis) : options.redis;
    this.tokensKey = `${prefix}{revoked}:tokens`;
    this.usersKey = `${prefix}{revoked}:users`;
    this.channel = `${prefix}revocations`;
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
    if (this.owned) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
