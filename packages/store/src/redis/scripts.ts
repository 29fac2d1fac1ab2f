import type { Cluster, Redis, Result } from 'ioredis';
import { defineScriptFiles, loadScriptDir, type RawReply } from '../lua-kit/script-loader.js';

export type { RawReply };

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/reserve-3.lua */
    hitlReserve(
      idempotencyKey: string,
      userPending: string,
      userAll: string,
      inquiryId: string,
      maxPending: number,
      keyTtlMs: number,
      hasKey: '0' | '1',
    ): Result<RawReply, Context>;
    /** src/lua/create-1.lua (a Cluster's step 2) */
    hitlCreate(
      inquiryKey: string,
      inquiryJson: string,
      ttlMs: number,
      suggestedJson: string,
      createdAt: number,
      callToken: string,
      waiterTag: string,
    ): Result<RawReply, Context>;
    /** src/lua/create-at-once-8.lua (one Redis) */
    hitlCreateAtOnce(
      idempotencyKey: string,
      userPending: string,
      userAll: string,
      inquiryKey: string,
      deadlines: string,
      pending: string,
      all: string,
      callReference: string,
      inquiryId: string,
      maxPending: number,
      ttlMs: number,
      hasKey: '0' | '1',
      inquiryJson: string,
      suggestedJson: string,
      createdAt: number,
      serviceAt: number,
      waiterTag: string,
      callTtlMs: number,
    ): Result<RawReply, Context>;
    /** src/lua/resolve-1.lua (a Cluster) */
    hitlResolve(
      inquiryKey: string,
      status: string,
      resolutionJson: string,
      retentionMs: number,
      nodeChannelPrefix: string,
      resolvedAt: number,
      callToken: string,
      inquiryId: string,
      ownTag: string,
      addressedTo: string,
      auditId?: string,
      auditJson?: string,
    ): Result<RawReply, Context>;
    /** src/lua/resolve-at-once-5.lua (one Redis) */
    hitlResolveAtOnce(
      inquiryKey: string,
      userPending: string,
      idempotencyKey: string,
      deadlines: string,
      pending: string,
      status: string,
      resolutionJson: string,
      retentionMs: number,
      nodeChannelPrefix: string,
      resolvedAt: number,
      callToken: string,
      inquiryId: string,
      hasKey: '0' | '1',
      knowsAsker: '0' | '1',
      ownTag: string,
      addressedTo: string,
      auditId?: string,
      auditJson?: string,
    ): Result<RawReply, Context>;
    /** src/lua/vote-1.lua */
    hitlVote(
      inquiryKey: string,
      userId: string,
      voteJson: string,
      vote: string,
      resolutionJson: string,
      retentionMs: number,
      nodeChannelPrefix: string,
      at: number,
      callToken: string,
      inquiryId: string,
      ownTag: string,
      publishHere: '0' | '1',
      voteAuditId?: string,
      voteAuditJson?: string,
      endAuditId?: string,
      endAuditJson?: string,
    ): Result<RawReply, Context>;
    /** src/lua/due-n.lua (one Redis): the key count, the shards, then now and the count per shard. */
    hitlDue(...args: (string | number)[]): Result<string[][], Context>;
    /** src/lua/watch-1.lua */
    hitlWatch(inquiryKey: string, waiterTag: string, maxTags: number): Result<RawReply, Context>;
    /** src/lua/escalate-1.lua */
    hitlEscalate(
      inquiryKey: string,
      escalatedAt: number,
      callToken: string,
      auditId?: string,
      auditJson?: string,
    ): Result<RawReply, Context>;
    /** src/lua/suggest-1.lua */
    hitlSuggest(inquiryKey: string, suggestedJson: string): Result<RawReply, Context>;
    /** src/lua/release-2.lua */
    hitlRelease(
      userPending: string,
      idempotencyKey: string,
      inquiryId: string,
      keyTtlMs: number,
      hasKey: '0' | '1',
    ): Result<RawReply, Context>;
  }
}

/** Beside this module in both layouts: src/redis → src/lua, dist/redis → dist/lua (copied by the build). */
const LUA_DIR = new URL('../lua/', import.meta.url);

/** Registers every store script as `hitl<Verb>` (see `loadScriptDir`). */
export function defineScripts(client: Redis | Cluster): void {
  defineScriptFiles(client, loadScriptDir(LUA_DIR, 'hitl'));
}
