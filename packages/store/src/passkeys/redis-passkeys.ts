import type { Cluster, Redis, Result } from 'ioredis';
import { defineScripts } from '../redis/scripts.js';
import type { ChallengeRecord, PasskeyRecord, PasskeyStore, PasskeyUse } from './passkeys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/passkey-use-1.lua */
    hitlPasskeyUse(userPasskeys: string, id: string, counter: number, at: number): Result<number, Context>;
  }
}

export interface RedisPasskeyOptions {
  redis: Redis | Cluster;
  prefix?: string;
}

/**
 * Passkeys shared by every node: a hash per user (`user:{u:<id>}:passkeys`: the record, its counter and
 * last use as fields of their own, so passkey-use-1.lua compares numbers without re-encoding JSON), a
 * key per credential id naming its user (ids are unique across users), and a key per challenge that
 * expires with it and is taken with GETDEL (once, on whichever node).
 */
export class RedisPasskeyStore implements PasskeyStore {
  private readonly redis: Redis | Cluster;
  private readonly prefix: string;

  constructor(options: RedisPasskeyOptions) {
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'hitl:';
    defineScripts(this.redis);
  }

  private userKey(userId: string): string {
    return `${this.prefix}user:{u:${userId}}:passkeys`;
  }

  private credentialKey(id: string): string {
    return `${this.prefix}passkey:{k:${id}}`;
  }

  private challengeKey(challenge: string): string {
    return `${this.prefix}passkey:challenge:{c:${challenge}}`;
  }

  async add(record: PasskeyRecord): Promise<'added' | 'exists'> {
    const claimed = await this.redis.set(this.credentialKey(record.id), record.userId, 'NX');
    if (claimed !== 'OK') return 'exists';
    const { counter, lastUsedAt: _used, ...fixed } = record;
    await this.redis.hset(
      this.userKey(record.userId),
      record.id,
      JSON.stringify(fixed),
      `${record.id}:counter`,
      counter,
    );
    return 'added';
  }

  async list(userId: string): Promise<PasskeyRecord[]> {
    const fields = await this.redis.hgetall(this.userKey(userId));
    return Object.keys(fields)
      .filter((field) => !field.includes(':'))
      .map((id) => recordOf(fields, id))
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async get(userId: string, id: string): Promise<PasskeyRecord | null> {
    const [json, counter, used] = await this.redis.hmget(
      this.userKey(userId),
      id,
      `${id}:counter`,
      `${id}:used`,
    );
    if (!json) return null;
    return recordOf(
      { [id]: json, [`${id}:counter`]: counter ?? '0', ...(used ? { [`${id}:used`]: used } : {}) },
      id,
    );
  }

  async remove(userId: string, id: string): Promise<boolean> {
    const removed = await this.redis.hdel(this.userKey(userId), id, `${id}:counter`, `${id}:used`);
    if (removed === 0) return false;
    await this.redis.del(this.credentialKey(id));
    return true;
  }

  async use(userId: string, id: string, counter: number, at: number): Promise<PasskeyUse> {
    const code = await this.redis.hitlPasskeyUse(this.userKey(userId), id, counter, at);
    return code === 1 ? 'used' : code === -1 ? 'not_found' : 'counter_not_increased';
  }

  async putChallenge(record: ChallengeRecord): Promise<void> {
    await this.redis.set(
      this.challengeKey(record.challenge),
      JSON.stringify(record),
      'PXAT',
      Math.ceil(record.expiresAt),
    );
  }

  async takeChallenge(challenge: string, now: number): Promise<ChallengeRecord | null> {
    const json = await this.redis.getdel(this.challengeKey(challenge));
    if (!json) return null;
    const record = JSON.parse(json) as ChallengeRecord;
    return record.expiresAt > now ? record : null;
  }

  async close(): Promise<void> {}
}

function recordOf(fields: Record<string, string>, id: string): PasskeyRecord {
  const record = JSON.parse(fields[id] as string) as PasskeyRecord;
  record.counter = Number(fields[`${id}:counter`] ?? 0);
  const used = fields[`${id}:used`];
  if (used !== undefined) record.lastUsedAt = Number(used);
  return record;
}
