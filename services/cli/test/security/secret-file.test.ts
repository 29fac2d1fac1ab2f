import { spawn } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

/** Runs `hitl serve` without HITL_SECRET on `stateDir`; resolves once it listens (killed) or exits. */
function serve(stateDir: string): Promise<{ started: boolean; code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', HITL_STATE_DIR: stateDir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let started = false;
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (!started && output.includes('node listening')) {
        started = true;
        child.kill('SIGKILL');
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.once('exit', (code) => resolve({ started, code, output }));
  });
}

const mode = async (path: string) => (await stat(path)).mode & 0o777;

/** Finding 7: the secret file's permissions are enforced. */
describe('security: the secret file', () => {
  let root = '';
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });
  const fresh = async () => {
    root = await mkdtemp(join(tmpdir(), 'hitl-secret-'));
    return root;
  };

  it('is created 0600 in a 0700 folder', async () => {
    const dir = join(await fresh(), 'state');
    const run = await serve(dir);
    expect(run.started).toBe(true);
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(dir, 'secret'))).toBe(0o600);
  });

  it('a short secret readable by others stops the start, untouched, with a message saying what to fix', async () => {
    const dir = join(await fresh(), 'state');
    await mkdir(dir, { mode: 0o700 });
    await chmod(dir, 0o700);
    const file = join(dir, 'secret');
    await writeFile(file, 'short\n');
    await chmod(file, 0o644);
    const run = await serve(dir);
    expect(run.started).toBe(false);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain(file);
    expect(run.output).toMatch(/chmod 600|0600/);
    expect(await readFile(file, 'utf8')).toBe('short\n');
    expect(await mode(file)).toBe(0o644);
  });

  it('a 0600 secret that is too short stops the start', async () => {
    const dir = join(await fresh(), 'state');
    await mkdir(dir, { mode: 0o700 });
    await writeFile(join(dir, 'secret'), 'short\n', { mode: 0o600 });
    const run = await serve(dir);
    expect(run.started).toBe(false);
    expect(run.output).toMatch(/at least 32/);
    expect(await readFile(join(dir, 'secret'), 'utf8')).toBe('short\n');
  });

  it('a symlink in place of the secret stops the start and is not followed', async () => {
    const base = await fresh();
    const dir = join(base, 'state');
    await mkdir(dir, { mode: 0o700 });
    const target = join(base, 'elsewhere');
    await writeFile(target, 'x'.repeat(64), { mode: 0o600 });
    await symlink(target, join(dir, 'secret'));
    const run = await serve(dir);
    expect(run.started).toBe(false);
    expect(run.output).toMatch(/symbolic link|symlink/);
    expect((await lstat(join(dir, 'secret'))).isSymbolicLink()).toBe(true);
  });

  it('a state folder others can read stops the start', async () => {
    const dir = join(await fresh(), 'state');
    await mkdir(dir);
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'secret'), 'y'.repeat(64), { mode: 0o600 });
    const run = await serve(dir);
    expect(run.started).toBe(false);
    expect(run.output).toMatch(/chmod 700|0700/);
  });
});
