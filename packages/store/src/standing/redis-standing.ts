import type { Result } from 'ioredis';
import type { RawReply } from '../lua-kit/script-loader.js';
import { readReply } from '../lua-kit/script-reply.js';
import { RedisBackedStore, type RedisStoreOptions } from '../redis/redis-backed-store.js';
import { defineScripts } from '../redis/scripts.js';
import {
  bySoonest,
  covers,
  decodeStanding,
  listedFor,
  type NewStandingApproval,
  type StandingApproval,
  type StandingCall,
  type StandingFilter,
  type StandingStore,
  standingBody,
} from './standing.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/standing-count-1.lua */
    hitlStandingCount(standing: string, id: string, now: number): Result<RawReply, Context>;
  }
}

enum Code {
  Counted = 1,
  Gone = -1,
  Expired = -4,
}

/** What the index keeps of each approval: enough to list and end it without a scan. */
interface IndexEntry {
  userId: string;
  createdBy: string;
  until: number;
}

export type RedisStandingOptions = RedisStoreOptions;

/**
 * Standing approvals shared by every node. The approvals covering one asker are one hash under the
 * asker's hash tag (`user:{u:<id>}:standing`): a use is one read of it (the node matches the
 * arguments) and one script that counts the use only if the approval is still there and live. An
 * index hash (`standing:{ids}`) names each approval's asker and maker, for listings and ends. An end
 * deletes the approval from the asker's hash: the next use on any node finds it gone.
 */
export class RedisStandingStore extends RedisBackedStore implements StandingStore {
  constructor(options: RedisStandingOptions) {
    super(options);
    defineScripts(this.redis);
  }

  async create(approval: NewStandingApproval): Promise<StandingApproval> {
    const body = standingBody(approval);
    const key = this.keys.userStanding(body.userId);
    const at = String(body.until);
    const replies = await this.redis
      .multi()
      .hset(key, body.id, JSON.stringify(body))
      // The hash lives as long as its longest-lived approval (NX: a fresh hash, GT: a longer one).
      .pexpireat(key, at, 'NX')
      .pexpireat(key, at, 'GT')
      .exec();
    const failed = replies?.find(([error]) => error);
    if (!replies || failed) throw failed?.[0] ?? new Error('standing approval create aborted');
    const entry: IndexEntry = { userId: body.userId, createdBy: body.createdBy, until: body.until };
    await this.redis.hset(this.keys.standingIndex, body.id, JSON.stringify(entry));
    return { ...body, uses: 0 };
  }

  async use(call: StandingCall, now: number): Promise<StandingApproval | null> {
    const key = this.keys.userStanding(call.userId);
    const candidates = decodeHash(await this.redis.hgetall(key))
      .filter((a) => covers(a, call, now))
      .sort(bySoonest);
    for (const approval of candidates) {
      const reply = await this.redis.hitlStandingCount(key, approval.id, now);
      const { code, fields } = readReply(
        'standing-count-1',
        reply,
        [Code.Counted, Code.Gone, Code.Expired],
        Code,
      );
      if (code === Code.Counted) return { ...approval, uses: Number(fields[0]) };
    }
    return null;
  }

  async get(id: string, now: number): Promise<StandingApproval | null> {
    const entry = decodeEntry(await this.redis.hget(this.keys.standingIndex, id));
    if (!entry || entry.until <= now) return null;
    const [body, uses] = await this.redis.hmget(this.keys.userStanding(entry.userId), id, `uses:${id}`);
    return decodeStanding(body, Number(uses ?? 0));
  }

  async list(filter: StandingFilter, now: number): Promise<StandingApproval[]> {
    const index = await this.redis.hgetall(this.keys.standingIndex);
    const wanted: string[] = [];
    const stale: string[] = [];
    for (const [id, json] of Object.entries(index)) {
      const entry = decodeEntry(json);
      if (!entry || entry.until <= now) stale.push(id);
      else if (listedFor({ ...entry, id } as NewStandingApproval, filter)) wanted.push(id);
    }
    if (stale.length > 0) await this.redis.hdel(this.keys.standingIndex, ...stale).catch(() => undefined);
    const found = await Promise.all(wanted.map((id) => this.get(id, now)));
    return found.filter((a): a is StandingApproval => a !== null).sort(bySoonest);
  }

  async countFor(userId: string, now: number): Promise<number> {
    const all = decodeHash(await this.redis.hgetall(this.keys.userStanding(userId)));
    return all.filter((a) => a.until > now).length;
  }

  async end(id: string, now: number): Promise<StandingApproval | null> {
    const entry = decodeEntry(await this.redis.hget(this.keys.standingIndex, id));
    if (!entry) return null;
    const key = this.keys.userStanding(entry.userId);
    // Read and delete in one transaction: a use counted before the end shows in the returned uses.
    const replies = await this.redis
      .multi()
      .hget(key, id)
      .hget(key, `uses:${id}`)
      .hdel(key, id, `uses:${id}`)
      .exec();
    await this.redis.hdel(this.keys.standingIndex, id);
    const body = replies?.[0]?.[1] as string | null | undefined;
    const uses = replies?.[1]?.[1] as string | null | undefined;
    const ended = decodeStanding(body, Number(uses ?? 0));
    return ended && ended.until > now ? ended : null;
  }

  async close(): Promise<void> {
    await this.release();
  }
}

/** The approvals of an asker's hash (`<id>` → JSON beside `uses:<id>` → count). */
function decodeHash(hash: Record<string, string>): StandingApproval[] {
  const found: StandingApproval[] = [];
  for (const [field, json] of Object.entries(hash)) {
    if (field.startsWith('uses:')) continue;
    const approval = decodeStanding(json, Number(hash[`uses:${field}`] ?? 0));
    if (approval) found.push(approval);
  }
  return found;
}

function decodeEntry(json: string | null | undefined): IndexEntry | null {
  if (!json) return null;
  const value = JSON.parse(json) as Partial<IndexEntry>;
  return typeof value.userId === 'string' &&
    typeof value.createdBy === 'string' &&
    typeof value.until === 'number'
    ? (value as IndexEntry)
    : null;
}
