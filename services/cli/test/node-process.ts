import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TokenService } from '@hitl/auth';
import type { Role } from '@hitl/protocol';
import { TEST_AUDIT_KEY } from '@hitl/store/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const BIN = fileURLToPath(new URL('../bin/hitl.js', import.meta.url));
export const SECRET = 'distributed-test-secret-long-enough-for-hs256';
export const tokens = new TokenService(SECRET);

const minted = new Map<string, Promise<string>>();

/**
 * One token per user, role and name, as an agent or device keeps its own: every token now carries a
 * fresh `jti`, and a call and its `notifications/cancelled` must come with the same token.
 */
export const token = (user: string, role: Role, name?: string) => {
  const key = `${user}\n${role}\n${name ?? ''}`;
  let signed = minted.get(key);
  if (!signed) {
    signed = tokens.sign({ sub: user, role, ...(name ? { name } : {}) });
    minted.set(key, signed);
  }
  return signed;
};

/** A `hitl serve` (or `hitl proxy`) process on a free loopback port. */
export interface NodeProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  /** What it has printed so far (stdout and stderr; the last MB): a log line to wait for. */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * Starts `hitl serve` as its own process and resolves once it logs where it listens. Without
 * `HITL_STATE_DIR` in `env` it gets a fresh state directory of its own (removed once it exits), so
 * nodes started side by side never share the embedded store's file; pass one to restart on it.
 */
export async function spawnNode(env: Record<string, string>): Promise<NodeProcess> {
  return spawnHitl(['serve'], env, 'node listening');
}

/**
 * Starts `hitl proxy <args>` (HTTP door) as its own process and resolves once it logs where it listens;
 * `url` is its base URL (the MCP endpoint is `${url}/mcp`). State directory as for {@link spawnNode}.
 */
export async function spawnProxy(args: string[], env: Record<string, string>): Promise<NodeProcess> {
  return spawnHitl(['proxy', ...args], env, 'proxy listening');
}

/** How much of a process's output {@link NodeProcess.output} keeps. */
const OUTPUT_KEPT = 1024 * 1024;

async function spawnHitl(
  args: string[],
  env: Record<string, string>,
  listening: string,
): Promise<NodeProcess> {
  const ownStateDir = env.HITL_STATE_DIR ? undefined : mkdtempSync(join(tmpdir(), 'hitl-node-'));
  const child = spawn(process.execPath, [BIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HITL_SECRET: SECRET,
      HITL_AUDIT_KEY: TEST_AUDIT_KEY,
      LOG_LEVEL: 'info',
      ...(ownStateDir ? { HITL_STATE_DIR: ownStateDir } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      if (ownStateDir) rmSync(ownStateDir, { recursive: true, force: true });
      resolve(code ?? signal ?? -1);
    }),
  );
  let seen = '';
  const keep = (chunk: Buffer) => {
    seen = (seen + chunk.toString()).slice(-OUTPUT_KEPT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const ready = new RegExp(`"url":"(http://[^"]+?)(?:/mcp)?".*"msg":"${listening}"`);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hitl ${args[0]} did not start: ${seen}`)), 30_000);
    child.stdout?.on('data', function listens() {
      const match = seen.match(ready);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout?.off('data', listens);
        resolve(match[1]);
      }
    });
    void exited.then((code) =>
      reject(new Error(`hitl ${args[0]} exited (${code}) before listening: ${seen}`)),
    );
  });
  return {
    url,
    child,
    exited,
    output: () => seen,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** An MCP SDK client for `user` on one node. */
export async function mcpClient(url: string, user: string): Promise<Client> {
  const client = new Client({ name: 'distributed-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${await token(user, 'agent')}` } },
  });
  await client.connect(transport);
  return client;
}

/** A real MCP backend for the approval proxy (official SDK, stdio): every execution appends a line to LEDGER_FILE. */
export const LEDGER_SERVER = fileURLToPath(
  new URL('../../mcp-proxy/test/fixtures/ledger-server.mjs', import.meta.url),
);

/** `hitl proxy` arguments: the ledger backend, in front of the inquiry node at `inquiryUrl`. */
export const ledgerProxyArgs = (inquiryUrl: string) => [
  '--backend-cmd',
  `${process.execPath} ${LEDGER_SERVER}`,
  '--inquiry-url',
  inquiryUrl,
];

/**
 * The processes and MCP clients a test file starts, to stop together: `keep` what it spawned,
 * `agentOf` connects `user`'s agent to one of them, `stopAll` closes the clients, then kills (-9).
 */
export function testProcesses(user: string) {
  const started: NodeProcess[] = [];
  const clients: Client[] = [];
  return {
    keep(...running: NodeProcess[]) {
      started.push(...running);
    },
    async agentOf(running: NodeProcess): Promise<Client> {
      const client = await mcpClient(running.url, user);
      clients.push(client);
      return client;
    },
    async stopAll(): Promise<void> {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await Promise.all(started.map((p) => p.kill('SIGKILL')));
    },
  };
}

/** The lines the ledger backend wrote to `file`, parsed. */
export const ledgerEntries = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The text parts of a tool result, joined. */
export const textOf = (result: unknown) =>
  (result as CallToolResult).content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** Headers for a REST call as `user`'s device. */
export const deviceHeaders = async (user: string) => ({
  authorization: `Bearer ${await token(user, 'device')}`,
  'content-type': 'application/json',
});

/** POST a JSON-RPC message to a node's `/mcp` as `user`'s agent. */
export async function rpcPost(
  url: string,
  user: string,
  message: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    signal,
    headers: {
      authorization: `Bearer ${await token(user, 'agent')}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(message),
  });
}

/**
 * A gauge of a node's `/metrics` right now: `hitl_held_calls` (calls it holds open),
 * `hitl_connected_devices` (device sockets on it), ... What a test waits on to know a call is held
 * or a socket gone, with `eventually`.
 */
export async function gauge(url: string, name: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const value = new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1];
  if (value === undefined) throw new Error(`no ${name} in ${url}/metrics`);
  return Number(value);
}

/** The tests' one condition wait (`vi.waitFor` underneath), and their one fixed sleep (time under test only). */
export { eventually, sleep } from '@hitl/store/testing';
