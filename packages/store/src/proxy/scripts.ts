import type { Cluster, Redis, Result } from 'ioredis';
import { defineScriptFiles, loadScriptDir, type RawReply } from '../lua-kit/script-loader.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/proxy/grant-decide-1.lua */
    hitlProxyGrantDecide(
      grant: string,
      verdict: string,
      now: number,
      digest: string,
    ): Result<RawReply, Context>;
    /** src/lua/proxy/grant-consume-1.lua */
    hitlProxyGrantConsume(grant: string, digest: string, now: number): Result<RawReply, Context>;
    /** src/lua/proxy/op-begin-1.lua */
    hitlProxyOpBegin(
      op: string,
      digest: string,
      state: string,
      owner: string,
      leaseMs: number,
      now: number,
      driveUntil: number,
      callJson: string,
    ): Result<RawReply, Context>;
    /** src/lua/proxy/op-update-1.lua */
    hitlProxyOpUpdate(
      op: string,
      owner: string,
      state: string,
      now: number,
      inquiryId: string,
      grantId: string,
      driveUntil: string,
    ): Result<RawReply, Context>;
    /** src/lua/proxy/op-adopt-1.lua */
    hitlProxyOpAdopt(op: string, owner: string, driveUntil: number, now: number): Result<RawReply, Context>;
    /** src/lua/proxy/op-finish-1.lua */
    hitlProxyOpFinish(
      op: string,
      owner: string,
      resultJson: string,
      retentionMs: number,
      now: number,
      channel: string,
      message: string,
    ): Result<RawReply, Context>;
  }
}

/** What a script's first reply element means; failures are small negative numbers. */
export enum ScriptCode {
  Existed = 0,
  Done = 1,
  NotFound = -1,
  WrongState = -2,
  Expired = -4,
  Mismatch = -5,
  NotOwner = -6,
}

/** Beside this module in both layouts: src/store → src/lua, dist/store → dist/lua (copied by the build). */
const LUA_DIR = new URL('../lua/proxy/', import.meta.url);

/** Registers every script as `hitlProxy<Verb>` with the store's loader (`-- #include` from lua/include/). */
export function defineProxyScripts(client: Redis | Cluster): void {
  defineScriptFiles(client, loadScriptDir(LUA_DIR, 'hitlProxy'));
}
