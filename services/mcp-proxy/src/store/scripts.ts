import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis, Result } from 'ioredis';

/** A script's raw reply: a code (see `ScriptCode`) then payload fields (null for missing ones). */
export type RawReply = [number, ...(string | number | null)[]];

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/grant-decide-1.lua */
    hitlProxyGrantDecide(grant: string, verdict: string, now: number): Result<RawReply, Context>;
    /** src/lua/grant-consume-1.lua */
    hitlProxyGrantConsume(grant: string, digest: string, now: number): Result<RawReply, Context>;
    /** src/lua/op-begin-1.lua */
    hitlProxyOpBegin(
      op: string,
      digest: string,
      state: string,
      owner: string,
      leaseMs: number,
      now: number,
    ): Result<RawReply, Context>;
    /** src/lua/op-update-1.lua */
    hitlProxyOpUpdate(
      op: string,
      owner: string,
      state: string,
      now: number,
      inquiryId: string,
      grantId: string,
    ): Result<RawReply, Context>;
    /** src/lua/op-finish-1.lua */
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
const LUA_DIR = fileURLToPath(new URL('../lua/', import.meta.url));
const FILE_NAME = /^([a-z]+(?:-[a-z]+)*)-(\d+)\.lua$/;

/** Registers every script as `hitlProxy<Verb>` (ioredis then runs them by EVALSHA, falling back to EVAL). */
export function defineProxyScripts(client: Redis | Cluster): void {
  for (const file of readdirSync(LUA_DIR).filter((name) => name.endsWith('.lua'))) {
    const match = FILE_NAME.exec(file);
    if (!match?.[1] || !match[2]) throw new Error(`Lua file name must be <verb>-<numKeys>.lua: ${file}`);
    const verb = match[1].replace(/(?:^|-)([a-z])/g, (_, letter: string) => letter.toUpperCase());
    client.defineCommand(`hitlProxy${verb}`, {
      numberOfKeys: Number(match[2]),
      lua: readFileSync(`${LUA_DIR}${file}`, 'utf8'),
    });
  }
}
