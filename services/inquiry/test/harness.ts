import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Role } from '@hitl/protocol';
import { loadConfig } from '@hitl/runtime';
import { startRedisServer, TEST_AUDIT_KEY } from '@hitl/store/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Socket } from 'socket.io-client';
import { type RunningNode, startNode } from '../src/node.js';
import { connectDevice, type TestDevice } from '../src/testing/device.js';
import { postMcp as postMcpTo } from '../src/testing/post-mcp.js';

export { connectDevice, type TestDevice };
export type StoreKind = 'memory' | 'sqlite' | 'redis';
export const STORE_KINDS: StoreKind[] = ['memory', 'sqlite', 'redis'];

export interface TestNode {
  node: RunningNode;
  url: string;
  token(user: string, role: Role, name?: string): Promise<string>;
  mcp(user: string, query?: string): Promise<Client>;
  device(user: string, name?: string): Promise<TestDevice>;
  rest(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  close(): Promise<void>;
}

const SECRET = 'test-secret-that-is-long-enough-for-hs256!';

/**
 * A real node on a loopback port, with its own state folder (where the `sqlite` store keeps its file)
 * and, for `redis`, its own redis-server. `memory` is the volatile store (`HITL_STORE=memory`).
 */
export async function startTestNode(kind: StoreKind, env: Record<string, string> = {}): Promise<TestNode> {
  const stateDir = await mkdtemp(join(tmpdir(), 'hitl-test-'));
  const redis = kind === 'redis' ? await startRedisServer() : undefined;
  const config = loadConfig({
    PORT: '0',
    HITL_SECRET: SECRET,
    HITL_AUDIT_KEY: TEST_AUDIT_KEY,
    HITL_STATE_DIR: stateDir,
    LOG_LEVEL: 'silent',
    HITL_SWEEP_MS: '100',
    ...(redis ? { REDIS_URL: redis.url } : {}),
    ...(kind === 'memory' ? { HITL_STORE: 'memory' } : {}),
    ...env,
  });
  const node = await startNode(config);
  const clients: Client[] = [];
  const sockets: Socket[] = [];
  const token = (user: string, role: Role, name?: string) =>
    node.tokens.sign({ sub: user, role, ...(name ? { name } : {}) });
  return {
    node,
    url: node.url,
    token,
    async mcp(user, query = '') {
      const client = new Client({ name: 'test-agent', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${node.url}/mcp${query}`), {
        requestInit: { headers: { Authorization: `Bearer ${await token(user, 'agent', 'test agent')}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async device(user, name = 'device') {
      const device = await connectDevice(node.url, await token(user, 'device'), name);
      sockets.push(device.socket);
      return device;
    },
    async rest(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
      if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetch(`${node.url}${path}`, { ...init, headers });
    },
    async close() {
      for (const s of sockets) s.disconnect();
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await node.close();
      await redis?.stop();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** A raw JSON-RPC POST to a node's /mcp, as an agent's client sends it (a held call answers on SSE). */
export function postMcp(t: TestNode, token: string, message: unknown): Promise<Response> {
  return postMcpTo(t.url, token, message);
}

/** The calls a node holds right now (its `hitl_held_calls` gauge): a call waits on its inquiry once counted. */
export async function heldCalls(nodeUrl: string): Promise<number> {
  const metrics = await (await fetch(`${nodeUrl}/metrics`)).text();
  return Number(/^hitl_held_calls (\d+)$/m.exec(metrics)?.[1]);
}

/** A response's JSON body, typed by the test that reads it. */
export async function body<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Two nodes on one fresh redis-server (the cluster's smallest shape). */
export interface NodePair {
  a: TestNode;
  b: TestNode;
  close(): Promise<void>;
}

export async function startNodePair(kind: StoreKind = 'memory'): Promise<NodePair> {
  const redis = await startRedisServer();
  const a = await startTestNode(kind, { REDIS_URL: redis.url });
  const b = await startTestNode(kind, { REDIS_URL: redis.url });
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
      await redis.stop();
    },
  };
}

/** Two nodes (SQLite each) sharing one redis-server and one directory file: a small cluster of a team. */
export interface TeamCluster {
  a: TestNode;
  b: TestNode;
  /** The directory file both nodes read (rewrite it and call `directory.reload()` to change it). */
  file: string;
  /** The redis-server both nodes share. */
  redisUrl: string;
  close(): Promise<void>;
}

export async function startTeamCluster(
  directory: unknown,
  env: Record<string, string> = {},
): Promise<TeamCluster> {
  const redis = await startRedisServer();
  const dir = await mkdtemp(join(tmpdir(), 'hitl-team-'));
  const file = join(dir, 'directory.json');
  await writeFile(file, JSON.stringify(directory));
  const shared = { REDIS_URL: redis.url, HITL_DIRECTORY_FILE: file, ...env };
  const a = await startTestNode('sqlite', shared);
  const b = await startTestNode('sqlite', shared);
  return {
    a,
    b,
    file,
    redisUrl: redis.url,
    close: async () => {
      await a.close();
      await b.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
