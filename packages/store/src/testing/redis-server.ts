import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Options of {@link startRedisServer}. */
export interface RedisServerOptions {
  /** Turn on the append-only file, so data survives `restart()` and `kill()` (fault tests). */
  appendonly?: boolean;
}

/** A Redis server for tests. */
export interface TestRedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and removes its data directory; a no-op with `REDIS_URL`. */
  stop(): Promise<void>;
  /** Stops and starts it again on the same port and data directory. */
  restart(): Promise<void>;
  /** Kills it (SIGKILL), as a crash would; `restart()` brings it back. */
  kill(): Promise<void>;
}

const NOT_FOUND =
  'redis-server not found on PATH: install it (apt-get install redis-server) or set REDIS_URL';

/**
 * Starts `redis-server` from PATH on a free loopback port and resolves once it says it is ready; with
 * `REDIS_URL` set, uses that server instead (nothing is spawned and `stop()` does nothing).
 *
 * @example
 * const server = await startRedisServer();
 * const store = new RedisInquiryStore({ redis: server.url, prefix: `test:${randomUUID()}:` });
 * await server.stop();
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<TestRedisServer> {
  const external = process.env.REDIS_URL;
  if (external) return externalServer(external);
  const binary = findOnPath('redis-server');
  if (!binary) throw new Error(NOT_FOUND);
  const dir = mkdtempSync(join(tmpdir(), 'hitl-redis-'));
  const argsFor = (port: number) => [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir],
    ...['--appendonly', options.appendonly ? 'yes' : 'no'],
  ];
  const started = await withFreshPorts(1, async ([first]) => {
    const port = first as number;
    return { port, child: await launch(binary, argsFor(port), port) };
  });
  const port = started.port;
  const args = argsFor(port);
  let child = started.child;
  const halt = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await halt('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
    async restart() {
      await halt('SIGTERM');
      child = await launch(binary, args, port);
    },
    async kill() {
      await halt('SIGKILL');
    },
  };
}

function externalServer(url: string): TestRedisServer {
  const unsupported = async () => {
    throw new Error('restart() and kill() need a spawned redis-server; unset REDIS_URL');
  };
  return {
    url,
    port: Number(new URL(url).port || 6379),
    stop: async () => {},
    restart: unsupported,
    kill: unsupported,
  };
}

export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** A free TCP port on loopback: nothing listens on it once this resolves (a closed port until taken). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

/** What a failed start is explained with: the end of what redis-server printed (it logs to stdout). */
const OUTPUT_TAIL = 2000;

/** Attempts at a start whose free port was taken before the server bound it. */
const PORT_ATTEMPTS = 3;

/**
 * Runs `start` with `count` free ports, again with new ones if it fails: a port found free is only
 * free until someone else binds it, and parallel test processes (and their clients' ephemeral
 * ports) sometimes do first. `pickPort` is for tests of this.
 */
export async function withFreshPorts<T>(
  count: number,
  start: (ports: number[]) => Promise<T>,
  pickPort: () => Promise<number> = freePort,
): Promise<T> {
  let lastError: unknown;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await pickPort());
    try {
      return await start(ports);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/** Starts redis-server and resolves once it says it is ready for connections (or rejects if it exits). */
export async function launch(binary: string, args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await printed(child, /Ready to accept connections/);
    return child;
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`redis-server on port ${port}: ${(error as Error).message}`);
  }
}

/**
 * Resolves once `child` prints a line matching `pattern` (redis-server logs to stdout); rejects if
 * it exits first, or prints nothing that matches within `timeoutMs`, with the end of its output.
 * Reads its output to the end either way, so a full pipe never blocks it.
 */
export function printed(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  let output = '';
  let done = false;
  return new Promise((resolve, reject) => {
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.off('exit', exited);
      if (error) reject(new Error(`${error.message}: ${output.trim()}`));
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`no ${pattern} within ${timeoutMs} ms`)), timeoutMs);
    const exited = (code: number | null) => finish(new Error(`exited (${code})`));
    const keep = (chunk: Buffer) => {
      if (done) return;
      output = (output + String(chunk)).slice(-OUTPUT_TAIL);
      if (pattern.test(output)) finish();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', exited);
  });
}
