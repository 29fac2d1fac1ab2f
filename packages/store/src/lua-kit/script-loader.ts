import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis } from 'ioredis';

/** A script's raw reply: a code (see the caller's code enum) then payload fields (null for missing ones). */
export type RawReply = [number, ...(string | number | null)[]];

/**
 * One Lua file: `<verb>-<numKeys>.lua` becomes the command `<prefix><Verb>` taking numKeys keys;
 * `<verb>-n.lua` takes any number (the caller passes the count first, as with EVAL).
 */
export interface ScriptFile {
  command: string;
  /** Undefined: the count of keys is the call's first argument. */
  numberOfKeys: number | undefined;
  lua: string;
}

const FILE_NAME = /^([a-z]+(?:-[a-z]+)*)-(\d+|n)\.lua$/;
/** `-- #include <name>` on a line of its own: replaced by `include/<name>.lua` of the same folder. */
const INCLUDE = /^--\s*#include\s+([a-z]+(?:-[a-z]+)*)\s*$/gm;

const loaded = new Map<string, ScriptFile[]>();

/**
 * Reads every `<verb>-<numKeys>.lua` in `dir` once per process, with each `-- #include <name>` line
 * replaced by `include/<name>.lua` (a block two scripts share is written once there; it is pasted
 * into each script, so Redis still runs one self-contained script per command).
 *
 * @example
 * // beside src/store/scripts.ts: src/lua/grant-decide-1.lua → hitlProxyGrantDecide, 1 key
 * const files = loadScriptDir(new URL('../lua/', import.meta.url), 'hitlProxy');
 */
export function loadScriptDir(dir: URL, prefix: string): ScriptFile[] {
  const path = fileURLToPath(dir);
  const cached = loaded.get(`${prefix}\u0000${path}`);
  if (cached) return cached;
  const files = readdirSync(path)
    .filter((file) => file.endsWith('.lua'))
    .sort()
    .map((file) => {
      const match = FILE_NAME.exec(file);
      if (!match?.[1] || !match[2]) throw new Error(`Lua file name must be <verb>-<numKeys|n>.lua: ${file}`);
      const verb = match[1].replace(/(?:^|-)([a-z])/g, (_, letter: string) => letter.toUpperCase());
      const lua = readFileSync(new URL(file, dir), 'utf8').replace(INCLUDE, (_, name: string) =>
        readFileSync(new URL(`include/${name}.lua`, dir), 'utf8').trimEnd(),
      );
      return {
        command: `${prefix}${verb}`,
        numberOfKeys: match[2] === 'n' ? undefined : Number(match[2]),
        lua,
      };
    });
  loaded.set(`${prefix}\u0000${path}`, files);
  return files;
}

/** Registers the scripts on the client (ioredis then runs them by EVALSHA, falling back to EVAL). */
export function defineScriptFiles(client: Redis | Cluster, files: readonly ScriptFile[]): void {
  for (const { command, numberOfKeys, lua } of files) {
    client.defineCommand(command, numberOfKeys === undefined ? { lua } : { numberOfKeys, lua });
  }
}
