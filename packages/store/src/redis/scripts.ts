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
    /** src/lua/create-2.lua */
    hitlCreate(
      inquiryKey: string,
      eventsKey: string,
      inquiryJson: string,
      ttlMs: number,
      suggestedJson: string,
      createdAt: number,
      callToken: string,
    ): Result<RawReply, Context>;
    /** src/lua/resolve-2.lua */
    hitlResolve(
      inquiryKey: string,
      eventsKey: string,
      status: string,
      resolutionJson: string,
      retentionMs: number,
      channel: string,
      resolvedAt: number,
      callToken: string,
    ): Result<RawReply, Context>;
    /** src/lua/vote-2.lua */
    hitlVote(
      inquiryKey: string,
      eventsKey: string,
      userId: string,
      voteJson: string,
      vote: string,
      resolutionJson: string,
      retentionMs: number,
      channel: string,
      at: number,
      callToken: string,
    ): Result<RawReply, Context>;
    /** src/lua/escalate-1.lua */
    hitlEscalate(inquiryKey: string, escalatedAt: number, callToken: string): Result<RawReply, Context>;
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
