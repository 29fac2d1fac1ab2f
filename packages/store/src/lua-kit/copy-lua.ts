import { cpSync, rmSync } from 'node:fs';

/**
 * The build's copy step for a package with Lua scripts: `src/lua/` (with `include/`) to `dist/lua/`,
 * so the compiled loader finds them beside itself as the sources do (`../lua/` from its folder).
 *
 * @example
 * // scripts/copy-lua.mjs, run after tsc
 * copyLuaFiles(new URL('../', import.meta.url));
 */
export function copyLuaFiles(packageRoot: URL): void {
  const to = new URL('dist/lua/', packageRoot);
  rmSync(to, { recursive: true, force: true });
  cpSync(new URL('src/lua/', packageRoot), to, { recursive: true });
}
