import { type ChildProcess, fork } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The node launcher; `BENCH_NODE_MAIN=<path>/bench/dist/env/node-main.js` runs the nodes of another
 * build (another worktree) under this runner, for an A/B of two builds in one session.
 */
const LAUNCHER = process.env.BENCH_NODE_MAIN ?? fileURLToPath(new URL('./node-main.js', import.meta.url));

/** Signs every token of a run; nodes and load generators share it. */
export const BENCH_SECRET = 'bench-secret-long-enough-for-hs256-signing-0123456789';

/**
 * What every benchmark node runs with. Tiers are long so no inquiry times out while a scenario
 * holds it; the rate limiter and the pending cap stay in the path but far above what a run sends.
 */
export const BENCH_NODE_ENV: Record<string, string> = {
  HOST: '127.0.0.1',
  PORT: '0',
  HITL_SECRET: BENCH_SECRET,
  // The checkpoint key a node on Redis needs (32 bytes, base64url: "bench-audit-key-for-checkpoints!").
  HITL_AUDIT_KEY: 'YmVuY2gtYXVkaXQta2V5LWZvci1jaGVja3BvaW50cyE',
  LOG_LEVEL: 'warn',
  HITL_DEVICE_TIMEOUT_MS: '300000',
  HITL_SERVICE_TIMEOUT_MS: '600000',
  HITL_CLIENT_TIMEOUT_MS: '900000',
  HITL_RATE_PER_MIN: '100000000',
  HITL_MAX_PENDING_PER_USER: '100000000',
  // Thousands of devices from one loopback address; the limits are measured apart, not here.
  HITL_HANDSHAKES_PER_MIN: '0',
  HITL_MAX_SOCKETS_PER_TOKEN: '1000',
  // Without REDIS_URL: the volatile store unless a scenario asks for `sqlite` (the durable default).
  HITL_STORE: 'memory',
};

/** A node process started by {@link startNodes}. */
export interface NodeHandle {
  url: string;
  pid: number;
  /** Its own fresh `HITL_STATE_DIR` (the embedded SQLite store's file lives there). */
  stateDir: string;
  child: ChildProcess;
  /** The last few KB the node wrote (warnings, errors), for a failure message. */
  output(): string;
  /** SIGTERM (the node drains and exits), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartNodeOptions {
  redisUrl?: string;
  env?: Record<string, string>;
  /** Extra node flags, e.g. `--inspect=127.0.0.1:0` or `--cpu-prof`. */
  execArgv?: string[];
}

/** Starts one node process and resolves once it listens. */
export async function startNode(index: number, options: StartNodeOptions = {}): Promise<NodeHandle> {
  const stateDir = mkdtempSync(join(tmpdir(), 'hitl-bench-state-'));
  const child = fork(LAUNCHER, [], {
    execArgv: [
      ...(options.execArgv ?? []),
      ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    ],
    env: {
      PATH: process.env.PATH ?? '',
      ...BENCH_NODE_ENV,
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_'))),
      HITL_STATE_DIR: stateDir,
      HITL_NODE_ID: `bench-${index}`,
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-8192);
  };
  child.stdout?.on('data', keep);
  if (process.env.BENCH_NODE_STDOUT)
    child.stdout?.pipe(createWriteStream(`${process.env.BENCH_NODE_STDOUT}-${index}.txt`));
  child.stderr?.on('data', keep);
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      // A node that dies on its own says why (the scenario then fails on its missing process).
      if (!stopping) process.stderr.write(`[bench] node ${index} exited (${code ?? signal}): ${tail}\n`);
      resolve();
    }),
  );
  const url = await listeningUrl(child, exited, `node ${index}`, () => tail);
  return {
    url,
    pid: child.pid as number,
    stateDir,
    child,
    output: () => tail,
    stop: async (graceMs = 5000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      stopping = true;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Starts `count` nodes on one Redis. */
export function startNodes(count: number, options: StartNodeOptions = {}): Promise<NodeHandle[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => startNode(i, options)));
}

/** What a node process used so far: messages received from Redis, CPU time, resident memory. */
export interface NodeStats {
  messages: number;
  cpuMs: number;
  rssBytes: number;
  /** V8 heap in use (after a full collection when asked with `gc` of a node run with `--expose-gc`). */
  heapUsedBytes: number;
}

/** Asks a node started by {@link startNode} for its {@link NodeStats} (over IPC). */
export function nodeStats(node: NodeHandle): Promise<NodeStats> {
  return askStats(node, false);
}

/** {@link nodeStats} after a full collection (a node started with `--expose-gc`): what it retains. */
export function nodeStatsAfterGc(node: NodeHandle): Promise<NodeStats> {
  return askStats(node, true);
}

function askStats(node: NodeHandle, gc: boolean): Promise<NodeStats> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('node did not report its stats in 10 s')), 10_000);
    const onMessage = (message: { type?: string } & NodeStats) => {
      if (message.type !== 'stats') return;
      clearTimeout(timer);
      node.child.off('message', onMessage);
      const { messages, cpuMs, rssBytes, heapUsedBytes } = message;
      resolve({ messages, cpuMs, rssBytes, heapUsedBytes });
    };
    node.child.on('message', onMessage);
    node.child.send({ type: 'stats', gc });
  });
}

/**
 * The URL a forked process (a node, a proxy) reports once it listens (`{type: 'listening', url}` over
 * IPC). One that has not within 120 s is killed, since nobody else will stop it; one that exits first
 * fails too. `output` gives what it printed, for the error.
 */
export function listeningUrl(
  child: ChildProcess,
  exited: Promise<void>,
  what: string,
  output: () => string,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start in 120 s: ${output()}`));
    }, 120_000);
    child.on('message', (message: { type?: string; url?: string }) => {
      if (message.type !== 'listening' || !message.url) return;
      clearTimeout(timer);
      resolve(message.url);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${what} exited before listening: ${output()}`));
    });
  });
}
