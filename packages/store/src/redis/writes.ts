import { randomUUID } from 'node:crypto';
import { audienceOf, type Inquiry, type Resolution } from '@hitl/protocol';
import type { StepAudit } from '../audit/audit-chain.js';
import { nameInOutbox, recordArgs } from '../audit/redis-outbox.js';
import { readReply } from '../lua-kit/script-reply.js';
import type { CreateOptions, CreateResult, NewInquiry, ResolveResult } from '../store.js';
import { decodeFields, type EncodedInquiry, encodeNew, encodeResolution, HASH_FIELDS } from './codec.js';
import { ScriptCode } from './codes.js';
import { prunePending, type ReadContext, readInquiry } from './listing.js';

/** What the write paths need from the store. */
export interface WriteContext extends ReadContext {
  retentionMs: number;
  /**
   * One Redis (not a Cluster): create and resolve are each one script over keys of several slots
   * (create-at-once-8, resolve-at-once-5). On a Cluster they are a script per slot.
   */
  atOnce: boolean;
  /** This node's tag (node-feed.ts): listed by the inquiries it creates, skipped when it resolves one. */
  tag: string;
  /** The audit chain's outbox key (audit/redis-audit-keys.ts), where a step's records are named first. */
  auditOutbox: string;
}

/** What a resolve may know of the inquiry beforehand (neither ever changes). */
export type AskerHint = Pick<Inquiry, 'userId' | 'idempotencyKey'>;

// Scripts that write take a per-call token (or a fresh id): ioredis re-sends a command whose reply a
// dropped connection lost, and the script must tell its own earlier run from someone else's.

/**
 * Create. On one Redis: create-at-once-8 (key, cap, user's sets, hash, global indexes, the call's
 * reference) in one step.
 * On a Cluster, in steps because the user's keys and the inquiry's live in different slots:
 * reserve-3 (idempotency key + pending cap) then create-1 (the hash, written only if absent), then
 * the global indexes.
 */
export async function createInquiry(
  ctx: WriteContext,
  input: NewInquiry,
  options: CreateOptions,
): Promise<CreateResult> {
  const ttlMs = Math.max(1, Math.ceil(input.deadlines.serviceAt - ctx.now())) + ctx.retentionMs;
  const step = ctx.atOnce ? createAtOnce : reserve;
  const encoded = encodeNew(input, input.inquiryId);
  let reserved = await step(ctx, input, options, ttlMs, encoded);
  // The cap counts set members; drop stale ones (a failed clean-up, an expired inquiry) and retry once.
  if (reserved.code === ScriptCode.OverLimit && (await prunePending(ctx, input.userId)) > 0) {
    reserved = await step(ctx, input, options, ttlMs, encoded);
  }
  if (reserved.code === ScriptCode.OverLimit) return { kind: 'limit', pending: Number(reserved.fields[0]) };
  if (ctx.atOnce && reserved.code === ScriptCode.Done) {
    return { kind: 'ok', inquiry: newInquiry(encoded), created: true };
  }
  // Existed: the key names an inquiry. If its hash is missing (a crash between reserve-3 and
  // create-1), create-1 writes it now, under that id.
  const inquiryId = reserved.fields[0] ?? input.inquiryId;
  if (ctx.atOnce) {
    const existing = await readInquiry(ctx, inquiryId);
    if (existing) return { kind: 'ok', inquiry: existing, created: false };
  }
  const written = await writeReserved(ctx, input, inquiryId, ttlMs);
  // The script steps could not write the call's reference (another slot): its own command.
  if (options.call && written.kind === 'ok' && written.created) {
    await rememberCall(ctx, options.call.key, inquiryId, options.call.ttlMs);
  }
  return written;
}

/** The inquiry an open MCP call waits on, for a cancel that reaches another node (`call:<key>`). */
export async function rememberCall(
  ctx: WriteContext,
  callKey: string,
  inquiryId: string,
  ttlMs: number,
): Promise<void> {
  await ctx.redis.set(ctx.keys.call(callKey), inquiryId, 'PX', callTtl(ttlMs));
}

/** A reference's TTL as Redis takes it: whole ms, at least 1. */
function callTtl(ttlMs: number): number {
  return Math.max(1, Math.round(ttlMs));
}

/** The inquiry as a create that wrote it returns it (as a read would), without reading it back. */
function newInquiry(encoded: EncodedInquiry): Inquiry {
  return decodeFields([encoded.inquiry, 'pending', null, encoded.suggested || null]) as Inquiry;
}

/** Steps 2 and 3 of a create on a Cluster (or a repair on one Redis): the hash, then the global indexes. */
async function writeReserved(
  ctx: WriteContext,
  input: NewInquiry,
  inquiryId: string,
  ttlMs: number,
): Promise<CreateResult> {
  const { redis, keys } = ctx;
  const encoded = encodeNew(input, inquiryId);
  const written = readReply(
    'create-1',
    await redis.hitlCreate(
      keys.inquiry(inquiryId),
      encoded.inquiry,
      ttlMs,
      encoded.suggested,
      input.createdAt,
      randomUUID(),
      ctx.tag,
    ),
    [ScriptCode.Done, ScriptCode.Existed],
    ScriptCode,
  );
  const created = written.code === ScriptCode.Done;
  const inquiry = created ? newInquiry(encoded) : decodeFields(written.fields);
  if (!inquiry) throw new Error(`inquiry ${inquiryId} vanished while being created`);
  // Re-adding on an idempotent retry repairs a crash right after create-1; a member that outlives
  // the inquiry is skipped (and removed) by the read paths.
  if (inquiry.status === 'pending') {
    await Promise.all([
      redis.zadd(keys.index('deadlines', inquiryId), inquiry.deadlines.serviceAt, inquiryId),
      ...(inquiry.escalation && inquiry.escalation.escalatedAt === undefined
        ? [redis.zadd(keys.index('escalations', inquiryId), inquiry.escalation.at, inquiryId)]
        : []),
      redis.zadd(keys.index('pending', inquiryId), 0, inquiryId),
      redis.zadd(keys.index('all', inquiryId), 0, inquiryId),
      addToMembers(ctx, inquiry),
    ]);
  }
  return { kind: 'ok', inquiry, created };
}

/**
 * The audience's own sets (the asker's were written with the reserve): each member lists it and
 * counts it as pending. One command per member: each user's keys live in their own slot.
 */
function addToMembers(ctx: WriteContext, inquiry: Inquiry): Promise<unknown> {
  const { redis, keys } = ctx;
  return Promise.all(
    otherMembers(inquiry).flatMap((userId) => [
      redis.zadd(keys.userPending(userId), 0, inquiry.inquiryId),
      redis.zadd(keys.userAll(userId), 0, inquiry.inquiryId),
    ]),
  );
}

async function createAtOnce(
  ctx: WriteContext,
  input: NewInquiry,
  options: CreateOptions,
  ttlMs: number,
  encoded: EncodedInquiry,
) {
  const { keys } = ctx;
  const { userId, idempotencyKey, inquiryId } = input;
  const reply = readReply(
    'create-at-once-8',
    await ctx.redis.hitlCreateAtOnce(
      keys.idempotency(userId, idempotencyKey ?? ''),
      keys.userPending(userId),
      keys.userAll(userId),
      keys.inquiry(inquiryId),
      keys.index('deadlines', inquiryId),
      keys.index('pending', inquiryId),
      keys.index('all', inquiryId),
      keys.call(options.call?.key ?? ''),
      inquiryId,
      options.maxPendingPerUser ?? 0,
      ttlMs,
      idempotencyKey === undefined ? '0' : '1',
      encoded.inquiry,
      encoded.suggested,
      input.createdAt,
      input.deadlines.serviceAt,
      ctx.tag,
      options.call ? callTtl(options.call.ttlMs) : 0,
    ),
    [ScriptCode.Done, ScriptCode.Existed, ScriptCode.OverLimit],
    ScriptCode,
  );
  // An audience's other members: their sets are in their own slots (rare; a command each); so is the
  // escalation index.
  if (reply.code === ScriptCode.Done && input.audience !== undefined) {
    await Promise.all([
      addToMembers(ctx, newInquiry(encoded)),
      ...(input.escalation
        ? [ctx.redis.zadd(keys.index('escalations', inquiryId), input.escalation.at, inquiryId)]
        : []),
    ]);
  }
  return reply;
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
 * Resolve-once, then the clean-up. On one Redis, when the caller knows the asker: one step
 * (resolve-at-once-5). `addressedTo`: a user the inquiry must be addressed to (checked in the same
 * step; otherwise `not_found`, and nothing written). Otherwise resolve-1 (or resolve-at-once-5 without the user's keys), then a
 * best-effort clean-up of the user's keys. `onWon` hears the win as soon as Redis confirms it (before
 * any clean-up), so waiters on this node need no message: the scripts publish only to the other
 * nodes waiting on the inquiry (on a Cluster, {@link tellWaiters} does).
 */
export async function resolveInquiry(
  ctx: WriteContext,
  inquiryId: string,
  resolution: Resolution,
  asker?: AskerHint,
  onWon?: (inquiry: Inquiry) => void,
  addressedTo?: string,
  audit?: StepAudit,
): Promise<ResolveResult> {
  const { redis, keys } = ctx;
  const startedAt = performance.now();
  const records = audit ? [audit.record] : [];
  const named = await nameInOutbox(redis, ctx.auditOutbox, inquiryId, records, ctx.now(), ctx.atOnce);
  const auditArgs = recordArgs(audit?.record);
  const args = [
    resolution.status,
    encodeResolution(resolution),
    ctx.retentionMs,
    keys.nodeChannelPrefix,
    resolution.resolvedAt,
    randomUUID(),
  ] as const;
  const raw = ctx.atOnce
    ? await redis.hitlResolveAtOnce(
        keys.inquiry(inquiryId),
        keys.userPending(asker?.userId ?? ''),
        keys.idempotency(asker?.userId ?? '', asker?.idempotencyKey ?? ''),
        keys.index('deadlines', inquiryId),
        keys.index('pending', inquiryId),
        ...args,
        inquiryId,
        asker?.idempotencyKey === undefined ? '0' : '1',
        asker === undefined ? '0' : '1',
        ctx.tag,
        addressedTo ?? '',
        ...auditArgs,
      )
    : await redis.hitlResolve(
        keys.inquiry(inquiryId),
        ...args,
        inquiryId,
        ctx.tag,
        addressedTo ?? '',
        ...auditArgs,
      );
  await named;
  const reply = readReply(
    ctx.atOnce ? 'resolve-at-once-5' : 'resolve-1',
    raw,
    [ScriptCode.Done, ScriptCode.Existed, ScriptCode.NotFound],
    ScriptCode,
  );
  if (reply.code === ScriptCode.NotFound) return { kind: 'not_found' };
  const inquiry = decodeFields(reply.fields);
  if (!inquiry) throw new Error(`resolve returned no inquiry for ${inquiryId}`);
  if (reply.code === ScriptCode.Existed) return { kind: 'lost', inquiry };
  onWon?.(inquiry);
  tellWaiters(ctx, reply.fields);
  // The script did the asker's keys only if the hint named them right: a caller may guess (a node that
  // skipped its read guesses from what it relayed to its devices); a wrong guess leaves them to release-2.
  const cleanedUp =
    ctx.atOnce && asker?.userId === inquiry.userId && asker.idempotencyKey === inquiry.idempotencyKey;
  if (!cleanedUp || otherMembers(inquiry).length > 0 || inquiry.escalation) {
    await unindex(ctx, inquiry, startedAt, !cleanedUp);
  }
  return { kind: 'won', inquiry };
}

/**
 * On a Cluster, after a win: publishes the winning reply's message to each waiting node but this one
 * (the scripts cannot: the node channels are in other slots). Best effort, not awaited: a node that
 * misses it learns of the end when its wait's deadline re-reads the state. On one Redis the script
 * has published already.
 */
export function tellWaiters(ctx: WriteContext, winningReply: readonly (string | null)[]): void {
  if (ctx.atOnce) return;
  const [waiters, message] = winningReply.slice(HASH_FIELDS.length);
  if (!waiters || !message) return;
  for (const tag of waiters.split(',')) {
    if (tag !== ctx.tag) ctx.redis.spublish(ctx.keys.nodeChannel(tag), message).catch(() => {});
  }
}

/**
 * Best effort: a failure leaves stale members that the read paths skip and remove. `asker` false:
 * the asker's keys and the global sets were done by the script; only the audience's sets are left.
 */
export async function unindex(
  ctx: WriteContext,
  inquiry: Inquiry,
  resolveStartedAt: number,
  asker = true,
): Promise<void> {
  const { redis, keys } = ctx;
  const { inquiryId, userId, idempotencyKey } = inquiry;
  // The hash's TTL was set at least this long ago, so the key expires no later than the hash.
  const keyTtlMs = Math.max(1, Math.floor(ctx.retentionMs - (performance.now() - resolveStartedAt)));
  const members = [
    ...otherMembers(inquiry).map((userId) => redis.zrem(keys.userPending(userId), inquiryId)),
    // Escalations have their own index, never cleaned by the resolve scripts (rare: only team questions).
    ...(inquiry.escalation ? [redis.zrem(keys.index('escalations', inquiryId), inquiryId)] : []),
  ];
  if (!asker) {
    await Promise.allSettled(members);
    return;
  }
  await Promise.allSettled([
    redis.hitlRelease(
      keys.userPending(userId),
      keys.idempotency(userId, idempotencyKey ?? ''),
      inquiryId,
      keyTtlMs,
      idempotencyKey === undefined ? '0' : '1',
    ),
    ...(ctx.atOnce
      ? []
      : [
          redis.zrem(keys.index('deadlines', inquiryId), inquiryId),
          redis.zrem(keys.index('pending', inquiryId), inquiryId),
        ]),
    ...members,
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
