import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository this test file belongs to. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Where turbo keeps this repository's cache (next to the git common dir, also from a worktree). */
export function turboCacheDir(): string {
  const common = execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  }).trim();
  return join(dirname(common), '.turbo', 'cache');
}

/**
 * The environment a person has in a fresh terminal: no `node_modules/.bin` on PATH (npm adds it to
 * scripts, which would hide a missing `npx`), no npm_* or vitest variables, and the node that runs
 * this test first on PATH (so the Node 24 CI leg stays on Node 24).
 */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const keep = ['HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'TMPDIR', 'TERM'];
  const env: Record<string, string> = { TURBO_TELEMETRY_DISABLED: '1' };
  for (const key of keep) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  const path = (process.env.PATH ?? '').split(':').filter((dir) => !dir.includes(`node_modules${sep}.bin`));
  env.PATH = [dirname(process.execPath), ...path].join(':');
  return { ...env, ...extra };
}

export interface ShellResult {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Runs `script` with `bash -e` in `cwd`; never throws on failure, kills it after `timeoutMs`. */
export function bash(
  script: string,
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number; wrap?: string[] },
): Promise<ShellResult> {
  const argv = [...(options.wrap ?? []), 'bash', '-e', '-c', script];
  const child = spawn(argv[0] ?? 'bash', argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => killGroup(child), options.timeoutMs ?? 120_000);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, stdout, stderr });
    });
  });
}

/** Signals a child started with `detached: true` and everything it started. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** A long-running command (e.g. `npm start`) in its own process group, resolved once `ready` shows. */
export async function startInBackground(
  script: string,
  options: { cwd: string; env: Record<string, string>; ready: RegExp; timeoutMs?: number; wrap?: string[] },
): Promise<{ child: ChildProcess; output: () => string }> {
  const argv = [...(options.wrap ?? []), 'bash', '-c', script];
  const child = spawn(argv[0] ?? 'bash', argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let seen = '';
  const collect = (chunk: Buffer) => {
    seen += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child);
      reject(new Error(`not ready in time: ${seen}`));
    }, options.timeoutMs ?? 120_000);
    const check = () => {
      if (!options.ready.test(seen)) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before ready: ${seen}`));
    });
  });
  return { child, output: () => seen };
}

/**
 * A network namespace of its own (loopback only), so blocks that name port 8787 as written never meet a
 * node someone else runs on this machine. `wrap` prefixes a command to run inside it; undefined when
 * the machine allows no namespaces (then the host's loopback is used).
 */
export async function privateLoopback(): Promise<{ wrap: string[]; close: () => void } | undefined> {
  const holder = spawn('unshare', ['-rn', 'sh', '-c', 'ip link set lo up && echo $$ && exec sleep 86400'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const pid = await new Promise<string | undefined>((resolve) => {
    holder.once('error', () => resolve(undefined));
    holder.once('exit', () => resolve(undefined));
    holder.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  if (!pid) return undefined;
  return {
    wrap: ['nsenter', '-t', pid, '-U', '-n', '--preserve-credentials'],
    close: () => holder.kill('SIGKILL'),
  };
}
