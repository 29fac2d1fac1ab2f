import { randomUUID } from 'node:crypto';
import type { Inquiry, Resolution, Vote } from '@hitl/protocol';
import type { StepAudit } from '../audit/audit-chain.js';
import { nameInOutbox, recordArgs, stepRecords } from '../audit/redis-outbox.js';
import { readReply } from '../lua-kit/script-reply.js';
import type { VoteResult } from '../store.js';
import { decodeFields, encodeResolution } from './codec.js';
import { ScriptCode } from './codes.js';
import { otherMembers, tellWaiters, unindex, type WriteContext } from './writes.js';

/*
 * What changes on a pending inquiry before it ends: a quorum approval's votes
 * (vote-1.lua) and its escalation (escalate-1.lua), each one atomic step on the inquiry's slot.
 */

/** One vote; a deciding one is resolved like resolve-2 (this node's waiters hear it through `onWon`). */
export async function voteOn(
  ctx: WriteContext,
  inquiryId: string,
  vote: Vote,
  decides: Resolution,
  onWon: (inquiry: Inquiry) => void,
  audit?: StepAudit,
): Promise<VoteResult> {
  const { redis, keys } = ctx;
  const startedAt = performance.now();
  const records = stepRecords(audit);
  const named = await nameInOutbox(redis, ctx.auditOutbox, inquiryId, records, ctx.now(), ctx.atOnce);
  const reply = readReply(
    'vote-1',
    await redis.hitlVote(
      keys.inquiry(inquiryId),
      vote.userId,
      JSON.stringify(vote),
      vote.vote,
      encodeResolution(decides),
      ctx.retentionMs,
      keys.nodeChannelPrefix,
      vote.at,
      randomUUID(),
      inquiryId,
      ctx.tag,
      ctx.atOnce ? '1' : '0',
      ...recordArgs(audit?.record),
      ...recordArgs(audit?.end),
    ),
    [ScriptCode.Done, ScriptCode.Counted, ScriptCode.AlreadyVoted, ScriptCode.Existed, ScriptCode.NotFound],
    ScriptCode,
  );
  await named;
  if (reply.code === ScriptCode.NotFound) return { kind: 'not_found' };
  const inquiry = decodeFields(reply.fields);
  if (!inquiry) throw new Error(`vote-1 returned no inquiry for ${inquiryId}`);
  switch (reply.code) {
    case ScriptCode.Counted:
      return { kind: 'counted', inquiry };
    case ScriptCode.AlreadyVoted:
      return { kind: 'already_voted', inquiry };
    case ScriptCode.Existed:
      return { kind: 'lost', inquiry };
  }
  onWon(inquiry);
  tellWaiters(ctx, reply.fields);
  // vote-1 ends the inquiry on its own slot only: every index is cleaned here (the resolve-at-once
  // script does the global ones itself, so unindex leaves them out on one Redis).
  await Promise.allSettled([
    unindex(ctx, inquiry, startedAt),
    ...(ctx.atOnce
      ? [
          redis.zrem(keys.index('deadlines', inquiryId), inquiryId),
          redis.zrem(keys.index('pending', inquiryId), inquiryId),
        ]
      : []),
  ]);
  return { kind: 'won', inquiry };
}

/** Marks the escalation done, then lists the inquiry for the users it added (best effort, like create's indexes). */
export async function escalateInquiry(
  ctx: WriteContext,
  inquiryId: string,
  at: number,
  audit?: StepAudit,
): Promise<Inquiry | null> {
  const { redis, keys } = ctx;
  const records = stepRecords(audit);
  const named = await nameInOutbox(redis, ctx.auditOutbox, inquiryId, records, ctx.now(), ctx.atOnce);
  const reply = readReply(
    'escalate-1',
    await redis.hitlEscalate(keys.inquiry(inquiryId), at, randomUUID(), ...recordArgs(audit?.record)),
    [ScriptCode.Done, ScriptCode.Existed, ScriptCode.NotPending, ScriptCode.NotFound],
    ScriptCode,
  );
  await named;
  if (reply.code !== ScriptCode.Done) {
    if (reply.code !== ScriptCode.Existed) await redis.zrem(keys.index('escalations', inquiryId), inquiryId);
    return null;
  }
  const inquiry = decodeFields(reply.fields);
  if (!inquiry?.escalation) return null;
  await Promise.allSettled([
    redis.zrem(keys.index('escalations', inquiryId), inquiryId),
    ...otherMembers(inquiry).flatMap((userId) => [
      redis.zadd(keys.userPending(userId), 0, inquiryId),
      redis.zadd(keys.userAll(userId), 0, inquiryId),
    ]),
  ]);
  return inquiry;
}
