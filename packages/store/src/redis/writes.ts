import { randomUUID } from 'node:crypto';
import { audienceOf, type Inquiry, type Resolution } from '@hitl/protocol';
import { readReply } from '../lua-kit/script-reply.js';
import type { CreateOptions, CreateResult, NewInquiry, ResolveResult } from '../store.js';
import { decodeFields, encodeNew, encodeResolution } from './codec.js';
import { ScriptCode } from './codes.js';
import { prunePending, type ReadContext } from './listing.js';

/** What the write paths need from the store. */
export interface WriteContext extends ReadContext {
  retentionMs: number;
}

// Scripts that write take a per-call token: ioredis re-sends a command whose reply a dropped
// connection lost, and the token lets the script tell its own earlier run from someone else's.

/**
 * Create, in two steps because the user's keys and the inquiry's keys live in different slots:
 * reserve-3 (idempotency key + pending cap) then create-2 (the hash, written only if absent), then
 * the global indexes.
 */
export async function createInquiry(
  ctx: WriteContext,
  input: NewInquiry,
  options: CreateOptions,
): Promise<CreateResult> {
  const { redis, keys } = ctx;
  const ttlMs = Math.max(1, Math.ceil(input.deadlines.serviceAt - ctx.now())) + ctx.retentionMs;
  let reserved = await reserve(ctx, input, options, ttlMs);
  // The cap counts set members; drop stale ones (a failed clean-up, an expired inquiry) and retry once.
  if (reserved.code === ScriptCode.OverLimit && (await prunePending(ctx, input.userId)) > 0) {
    reserved = await reserve(ctx, input, options, ttlMs);
  }
  if (reserved.code === ScriptCode.OverLimit) return { kind: 'limit', pending: Number(reserved.fields[0]) };
  // Existed: the key names an inquiry. If its hash is missing (a crash between the two steps),
  // create-2 writes it now, under that id.
  const inquiryId = reserved.fields[0] ?? input.inquiryId;
  const encoded = encodeNew(input, inquiryId);
  const written = readReply(
    'create-2',
    await redis.hitlCreate(
      keys.inquiry(inquiryId),
      keys.events(inquiryId),
      encoded.inquiry,
      ttlMs,
      encoded.suggested,
      input.createdAt,
      randomUUID(),
    ),
    [ScriptCode.Done, ScriptCode.Existed],
    ScriptCode,
  );
  const created = written.code === ScriptCode.Done;
  const inquiry = decodeFields(
    created ? [encoded.inquiry, 'pending', null, encoded.suggested || null] : written.fields,
  );
  if (!inquiry) throw new Error(`inquiry ${inquiryId} vanished while being created`);
  // Re-adding on an idempotent retry repairs a crash right after create-2; a member that outlives
  // the inquiry is skipped (and removed) by the read paths.
  if (inquiry.status === 'pending') {
    await Promise.all([
      redis.zadd(keys.deadlines, inquiry.deadlines.serviceAt, inquiryId),
      ...(inquiry.escalation && inquiry.escalation.escalatedAt === undefined
        ? [redis.zadd(keys.escalations, inquiry.escalation.at, inquiryId)]
        : []),
      redis.zadd(keys.pending, 0, inquiryId),
      redis.zadd(keys.all, 0, inquiryId),
      // The audience's own sets (the asker's were written by reserve-3): each member lists it and
      // counts it as pending. One command per member: each user's keys live in their own slot.
      ...otherMembers(inquiry).flatMap((userId) => [
        redis.zadd(keys.userPending(userId), 0, inquiryId),
        redis.zadd(keys.userAll(userId), 0, inquiryId),
      ]),
    ]);
  }
  return { kind: 'ok', inquiry, created };
}

async function reserve(ctx: WriteContext, input: NewInquiry, options: CreateOptions, ttlMs: number) {
  const { keys } = ctx;
  const { userId, idempotencyKey } = input;
  return readReply(
    'reserve-3',
    await ctx.redis.hitlReserve(
      keys.idempotency(userId, idempotencyKey ?? ''),
      keys.userPending(userId),
      keys.userAll(userId),
      input.inquiryId,
      options.maxPendingPerUser ?? 0,
      ttlMs,
      idempotencyKey === undefined ? '0' : '1',
    ),
    [ScriptCode.Done, ScriptCode.Existed, ScriptCode.OverLimit],
    ScriptCode,
  );
}

/**
 * Resolve-once (resolve-2, one atomic step on the inquiry's slot), then best-effort clean-up.
 * `onWon` hears the win as soon as Redis confirms it (before the clean-up and before the published
 * message comes back), so waiters on this node need not wait for the pub/sub round trip.
 */
export async function resolveInquiry(
  ctx: WriteContext,
  inquiryId: string,
  resolution: Resolution,
  onWon?: (inquiry: Inquiry) => void,
): Promise<ResolveResult> {
  const { redis, keys } = ctx;
  const startedAt = performance.now();
  const reply = readReply(
    'resolve-2',
    await redis.hitlResolve(
      keys.inquiry(inquiryId),
      keys.events(inquiryId),
      resolution.status,
      encodeResolution(resolution),
      ctx.retentionMs,
      keys.resolvedChannel,
      resolution.resolvedAt,
      randomUUID(),
    ),
    [ScriptCode.Done, ScriptCode.Existed, ScriptCode.NotFound],
    ScriptCode,
  );
  if (reply.code === ScriptCode.NotFound) return { kind: 'not_found' };
  const inquiry = decodeFields(reply.fields);
  if (!inquiry) throw new Error(`resolve-2 returned no inquiry for ${inquiryId}`);
  if (reply.code === ScriptCode.Existed) return { kind: 'lost', inquiry };
  onWon?.(inquiry);
  await unindex(ctx, inquiry, startedAt);
  return { kind: 'won', inquiry };
}

/** Best effort: a failure leaves stale members that the read paths skip and remove. */
export async function unindex(ctx: WriteContext, inquiry: Inquiry, resolveStartedAt: number): Promise<void> {
  const { redis, keys } = ctx;
  const { inquiryId, userId, idempotencyKey } = inquiry;
  // The hash's TTL was set at least this long ago, so the key expires no later than the hash.
  const keyTtlMs = Math.max(1, Math.floor(ctx.retentionMs - (performance.now() - resolveStartedAt)));
  await Promise.allSettled([
    redis.hitlRelease(
      keys.userPending(userId),
      keys.idempotency(userId, idempotencyKey ?? ''),
      inquiryId,
      keyTtlMs,
      idempotencyKey === undefined ? '0' : '1',
    ),
    redis.zrem(keys.deadlines, inquiryId),
    ...(inquiry.escalation ? [redis.zrem(keys.escalations, inquiryId)] : []),
    redis.zrem(keys.pending, inquiryId),
    ...otherMembers(inquiry).map((userId) => redis.zrem(keys.userPending(userId), inquiryId)),
  ]);
}

/** Audience members other than the asker's user (whose sets reserve-3 and release-2 keep). */
export function otherMembers(inquiry: Inquiry): string[] {
  return audienceOf(inquiry).filter((userId) => userId !== inquiry.userId);
}

/** Attaches (or clears, with undefined) a suggestion while the inquiry is pending. */
export async function suggestAnswer(
  ctx: WriteContext,
  inquiryId: string,
  suggestedAnswer: Inquiry['suggestedAnswer'],
): Promise<boolean> {
  const json = suggestedAnswer === undefined ? '' : JSON.stringify(suggestedAnswer);
  const reply = readReply(
    'suggest-1',
    await ctx.redis.hitlSuggest(ctx.keys.inquiry(inquiryId), json),
    [ScriptCode.Done, ScriptCode.NotPending, ScriptCode.NotFound],
    ScriptCode,
  );
  return reply.code === ScriptCode.Done;
}
