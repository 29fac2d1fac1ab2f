import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bash, killGroup, REPO_ROOT, startInBackground, turboCacheDir, userEnv } from './shell.js';

// A newcomer's first hour, on a fresh clone of this commit: `npx hitl` works before and after builds,
// including a build turbo restores from its cache (which once dropped the run bit of dist/bin.js).
// The clone shares this repository's turbo cache so a CI run restores instead of compiling twice.

let work: string;
let clone: string;
let env: Record<string, string>;
const TOKEN = /^[\w-]+\.[\w-]+\.[\w-]+\n$/;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'hitl-clone-'));
  clone = join(work, 'repo');
  env = userEnv({ TURBO_CACHE_DIR: turboCacheDir(), HITL_STATE_DIR: join(work, 'state'), LOG_LEVEL: 'warn' });
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  execFileSync('git', ['clone', '--quiet', '--no-checkout', REPO_ROOT, clone]);
  execFileSync('git', ['checkout', '--quiet', head], { cwd: clone });
}, 60_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const run = (script: string, timeoutMs = 300_000) => bash(script, { cwd: clone, env, timeoutMs });

it('npx hitl works on a fresh clone after npm ci, a build, and a build restored from the cache', async () => {
  const install = await run('npm ci --prefer-offline --no-audit --no-fund');
  expect(install.code, install.stderr).toBe(0);

  // Linked at install time (the bin is a committed file); before a build it says what to do.
  const early = await run('npx hitl --version');
  expect(early.code).toBe(1);
  expect(early.stderr).toContain('npm run build');

  const build = await run('npm run build');
  expect(build.code, build.stdout + build.stderr).toBe(0);
  const version = await run('npx hitl --version');
  expect(version, version.stderr).toMatchObject({ code: 0, stdout: '0.1.0\n' });

  await rm(join(clone, 'services/cli/dist'), { recursive: true, force: true });
  const rebuild = await run('npm run build');
  expect(rebuild.code, rebuild.stdout + rebuild.stderr).toBe(0);
  expect(rebuild.stdout).toMatch(/@hitl\/cli:build: cache hit/);
  const token = await run('npx hitl token create --user demo --role agent');
  expect(token.code, token.stderr).toBe(0);
  expect(token.stdout).toMatch(TOKEN);
}, 900_000);

it('npm start brings a node up whose tokens `npx hitl token create` can mint', async () => {
  const node = await startInBackground('PORT=0 npm start', {
    cwd: clone,
    env,
    ready: /device URL:\s+\S+/,
  });
  try {
    const url = node.output().match(/MCP endpoint:\s+(\S+)\/mcp/)?.[1] ?? '';
    const device = await run('npx hitl token create --user demo --role device');
    expect(device.stdout).toMatch(TOKEN);
    const list = await fetch(`${url}/api/inquiries`, {
      headers: { authorization: `Bearer ${device.stdout.trim()}` },
    });
    expect(list.status).toBe(200);
  } finally {
    killGroup(node.child, 'SIGTERM');
  }
}, 300_000);
