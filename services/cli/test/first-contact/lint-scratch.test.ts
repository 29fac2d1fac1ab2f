import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bash, REPO_ROOT, userEnv } from './shell.js';

// The docs runner runs README's `npm run lint` in the user's own working tree: an untracked scratch
// file of theirs must not fail it. Here, on a clone of this commit (biome from this checkout's
// node_modules, no install): a badly formatted untracked file is not linted; once added to git it is.

let work: string;
let clone: string;
let env: Record<string, string>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'hitl-lint-'));
  clone = join(work, 'repo');
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  execFileSync('git', ['clone', '--quiet', '--shared', '--no-checkout', REPO_ROOT, clone]);
  execFileSync('git', ['checkout', '--quiet', head], { cwd: clone });
  const user = userEnv();
  env = { ...user, PATH: `${join(REPO_ROOT, 'node_modules', '.bin')}:${user.PATH}` };
}, 120_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

it('npm run lint passes with an untracked scratch file, and lints it once git tracks it', async () => {
  await writeFile(join(clone, 'scratch.ts'), 'var   unused = 1;;\n');
  const untracked = await bash('npm run lint', { cwd: clone, env, timeoutMs: 300_000 });
  expect(untracked.code, `${untracked.stdout}\n${untracked.stderr}`).toBe(0);

  execFileSync('git', ['add', 'scratch.ts'], { cwd: clone });
  const tracked = await bash('npm run lint', { cwd: clone, env, timeoutMs: 300_000 });
  expect(tracked.code).not.toBe(0);
  expect(`${tracked.stdout}\n${tracked.stderr}`).toContain('scratch.ts');
}, 600_000);
