import { defineScriptFiles, loadScriptDir } from '@hitl/store';
import type { Cluster, Redis, Result } from 'ioredis';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/rate-incr-1.lua: `[count, end]` (end in ms since epoch, on the caller's clock). */
    hitlRateIncr(
      window: string,
      now: number,
      points: number,
      windowMs: number,
    ): Result<[number, number], Context>;
    /** src/lua/rate-incr-many-n.lua: the key count, the keys, now, the window (ms), the points per key. */
    hitlRateIncrMany(...args: (string | number)[]): Result<number[], Context>;
  }
}

/** Beside this module in both layouts: src/core → src/lua, dist/core → dist/lua (copied by the build). */
const LUA_DIR = new URL('../lua/', import.meta.url);

/** Registers the shared rate limit's scripts as `hitl<Verb>` (once per client). */
export function defineRateScripts(client: Redis | Cluster): void {
  if ('hitlRateIncr' in client) return;
  defineScriptFiles(client, loadScriptDir(LUA_DIR, 'hitl'));
}
