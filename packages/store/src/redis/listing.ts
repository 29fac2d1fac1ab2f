import { type Inquiry, isAddressedTo, type Page } from '@hitl/protocol';
import { Cluster, type Redis } from 'ioredis';
import { inquiryIdTime } from '../ids.js';
import type { ListOptions } from '../store.js';
import { decodeFields, HASH_FIELDS } from './codec.js';
import type { StoreKeys } from './keys.js';

/** What the read paths need from the store. */
export interface ReadContext {
  redis: Redis | Cluster;
  keys: StoreKeys;
  now: () => number;
}

/**
 * A set member whose hash is missing is dropped only once its id is older than this: create adds
 * the id to the user's sets (reserve-3) a moment before it writes the hash (create-2).
 */
const MISSING_GRACE_MS = 60_000;

export async function readInquiry(ctx: ReadContext, inquiryId: string): Promise<Inquiry | null> {
  return decodeFields(await ctx.redis.hmget(ctx.keys.inquiry(inquiryId), ...HASH_FIELDS));
}

/**
 * One page, newest first; with a user, only what is addressed to that user. Set members are hints, the hash is the truth: members whose hash is gone
 * (expired) or no longer pending (in a pending set) are skipped and removed in passing.
 */
export async function listPage(ctx: ReadContext, options: ListOptions): Promise<Page<Inquiry>> {
  const { keys } = ctx;
  const { userId, limit } = options;
  const pendingOnly = options.status === 'pending';
  // Ops listings read every shard of the global index; a user's, the user's own set.
  const setKeys =
    userId === undefined
      ? keys.indexKeys(pendingOnly ? 'pending' : 'all')
      : [pendingOnly ? keys.userPending(userId) : keys.userAll(userId)];
  const wanted = limit + 1; // one more than a page tells whether another page exists
  const found: Inquiry[] = [];
  let max = options.cursor === undefined ? '+' : `(${options.cursor}`;
  for (;;) {
    const batch = wanted - found.length;
    const ids = await newestBelow(ctx, setKeys, max, batch);
    const inquiries = await Promise.all(ids.map((id) => readInquiry(ctx, id)));
    const stale: string[] = [];
    ids.forEach((id, index) => {
      const inquiry = inquiries[index] ?? null;
      // The asker's sets also hold what the asker's agent addressed to others (it counts against the
      // asker's cap): kept in the set, left out of the listing.
      if (inquiry && userId !== undefined && !isAddressedTo(inquiry, userId)) return;
      if (inquiry && (!pendingOnly || inquiry.status === 'pending')) found.push(inquiry);
      else if (isStale(ctx, id, inquiry)) stale.push(id);
    });
    for (const setKey of setKeys) removeStale(ctx, setKey, stale);
    const last = ids.at(-1);
    if (found.length >= wanted || ids.length < batch || last === undefined) break;
    max = `(${last}`;
  }
  const items = found.slice(0, limit);
  const lastItem = items.at(-1);
  return { items, nextCursor: found.length > limit && lastItem ? lastItem.inquiryId : null };
}

/**
 * The `count` greatest ids below `max` across the sets: each set's first `count`, merged. Ids are
 * ULIDs, so the order (and the opaque cursor, the last id of a page) is the same as in one set.
 */
async function newestBelow(
  ctx: ReadContext,
  setKeys: string[],
  max: string,
  count: number,
): Promise<string[]> {
  const lists = await Promise.all(
    setKeys.map((key) => ctx.redis.zrevrangebylex(key, max, '-', 'LIMIT', 0, count)),
  );
  if (lists.length === 1) return lists[0] ?? [];
  return [...new Set(lists.flat())].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)).slice(0, count);
}

/** The user's pending inquiries, counted from their hashes. */
export async function countPending(ctx: ReadContext, userId: string): Promise<number> {
  const setKey = ctx.keys.userPending(userId);
  const { pending, stale } = await sortByStatus(ctx, await ctx.redis.zrange(setKey, '0', '-1'));
  removeStale(ctx, setKey, stale);
  return pending.length;
}

/**
 * Removes the members of the user's pending set that are no longer pending (a resolve whose
 * clean-up failed, an expired inquiry), so they stop counting against the cap. Returns how many went.
 */
export async function prunePending(ctx: ReadContext, userId: string): Promise<number> {
  const setKey = ctx.keys.userPending(userId);
  const { stale } = await sortByStatus(ctx, await ctx.redis.zrange(setKey, '0', '-1'));
  return stale.length === 0 ? 0 : ctx.redis.zrem(setKey, ...stale);
}

/** Pending inquiries whose service deadline is at or before `now`, earliest deadline first. */
export function listDue(ctx: ReadContext, now: number, limit: number): Promise<string[]> {
  return pendingByScore(ctx, ctx.keys.indexKeys('deadlines'), now, limit);
}

/** Pending inquiries whose planned escalation is due by `now`, oldest first. */
export function listDueEscalations(ctx: ReadContext, now: number, limit: number): Promise<string[]> {
  return pendingByScore(ctx, ctx.keys.indexKeys('escalations'), now, limit);
}

/**
 * Members of time-scored sets (an index's shards) up to `now` whose inquiry is still pending,
 * earliest first: each shard's first `limit`, merged by score; stale members are removed.
 */
async function pendingByScore(
  ctx: ReadContext,
  keys: string[],
  now: number,
  limit: number,
): Promise<string[]> {
  // Every node sweeps each index twice a second: on one Redis all shards in one script (one command
  // sent, not one per shard); on a Cluster each shard in its own slot.
  const lists =
    ctx.redis instanceof Cluster
      ? await Promise.all(
          keys.map((key) => ctx.redis.zrangebyscore(key, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)),
        )
      : await ctx.redis.hitlDue(keys.length, ...keys, now, limit);
  const scored: [string, number][] = [];
  for (const list of lists)
    for (let i = 0; i + 1 < list.length; i += 2) scored.push([list[i] as string, Number(list[i + 1])]);
  const ids = [...new Set(scored.sort((a, b) => a[1] - b[1]).map(([id]) => id))].slice(0, limit);
  const { pending, stale } = await sortByStatus(ctx, ids);
  for (const key of keys) removeStale(ctx, key, stale);
  return pending;
}

/** Pending ids in the store: the sizes of the pending index's shards, summed. */
export async function countAllPending(ctx: ReadContext): Promise<number> {
  const sizes = await Promise.all(ctx.keys.indexKeys('pending').map((key) => ctx.redis.zcard(key)));
  return sizes.reduce((a, b) => a + b, 0);
}

/** Splits set members by their hash: pending ones (in order), stale ones, and the rest (left alone). */
async function sortByStatus(
  ctx: ReadContext,
  ids: string[],
): Promise<{ pending: string[]; stale: string[] }> {
  const statuses = await Promise.all(ids.map((id) => ctx.redis.hget(ctx.keys.inquiry(id), 'status')));
  const pending: string[] = [];
  const stale: string[] = [];
  ids.forEach((id, index) => {
    const status = statuses[index] ?? null;
    if (status === 'pending') pending.push(id);
    else if (status !== null || isStale(ctx, id, null)) stale.push(id);
  });
  return { pending, stale };
}

function isStale(ctx: ReadContext, inquiryId: string, inquiry: Inquiry | null): boolean {
  if (inquiry) return true; // present but not pending: it can never be pending again
  const createdAt = inquiryIdTime(inquiryId);
  return createdAt === undefined || ctx.now() - createdAt > MISSING_GRACE_MS;
}

function removeStale(ctx: ReadContext, setKey: string, ids: string[]): void {
  if (ids.length === 0) return;
  // Best effort: a member left behind is skipped again next time.
  ctx.redis.zrem(setKey, ...ids).catch(() => {});
}
