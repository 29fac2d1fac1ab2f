import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis, Result } from 'ioredis';

/** A script's raw reply: a code (see `ScriptCode`) then payload fields (null for missing ones). */
export type RawReply = [number, ...(string | number | null)[]];

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

/** One Lua file: `<verb>-<numKeys>.lua` becomes the command `hitl<Verb>` taking numKeys keys. */
export interface ScriptFile {
  command: string;
  numberOfKeys: number;
  lua: string;
}

/** Beside this module in both layouts: src/redis → src/lua, dist/redis → dist/lua (copied by the build). */
const LUA_DIR = fileURLToPath(new URL('../lua/', import.meta.url));
const FILE_NAME = /^([a-z]+(?:-[a-z]+)*)-(\d+)\.lua$/;

let loaded: ScriptFile[] | undefined;

/** Reads every script once per process. */
export function loadScripts(): ScriptFile[] {
  loaded ??= readdirSync(LUA_DIR)
    .filter((file) => file.endsWith('.lua'))
    .sort()
    .map((file) => {
      const match = FILE_NAME.exec(file);
      if (!match?.[1] || !match[2]) throw new Error(`Lua file name must be <verb>-<numKeys>.lua: ${file}`);
      return {
        command: `hitl${match[1].replace(/(?:^|-)([a-z])/g, (_, letter: string) => letter.toUpperCase())}`,
        numberOfKeys: Number(match[2]),
        lua: readFileSync(`${LUA_DIR}${file}`, 'utf8'),
      };
    });
  return loaded;
}

/** Registers every script on the client (ioredis then runs them by EVALSHA, falling back to EVAL). */
export function defineScripts(client: Redis | Cluster): void {
  for (const { command, numberOfKeys, lua } of loadScripts()) {
    client.defineCommand(command, { numberOfKeys, lua });
  }
}
