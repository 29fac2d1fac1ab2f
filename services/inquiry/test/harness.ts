import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceInquiry, InquiryResolvedEvent, InquirySyncEvent, Role } from '@hitl/protocol';
import { startRedisServer } from '@hitl/store/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { io, type Socket } from 'socket.io-client';
import { loadConfig } from '../src/config.js';
import { type RunningNode, startNode } from '../src/node.js';

export type StoreKind = 'memory' | 'redis';
export const STORE_KINDS: StoreKind[] = ['memory', 'redis'];

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

/** A real node on a loopback port, with its own state folder and (for `redis`) its own redis-server. */
export async function startTestNode(kind: StoreKind, env: Record<string, string> = {}): Promise<TestNode> {
  const stateDir = await mkdtemp(join(tmpdir(), 'hitl-test-'));
  const redis = kind === 'redis' ? await startRedisServer() : undefined;
  const config = loadConfig({
    PORT: '0',
    HITL_SECRET: SECRET,
    HITL_STATE_DIR: stateDir,
    LOG_LEVEL: 'silent',
    HITL_SWEEP_MS: '100',
    ...(redis ? { REDIS_URL: redis.url } : {}),
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

export interface TestDevice {
  socket: Socket;
  /** Every inquiry:new / inquiry:resolved / inquiry:sync received, in order. */
  received: { event: string; payload: unknown }[];
  nextNew(): Promise<DeviceInquiry>;
  nextResolved(): Promise<InquiryResolvedEvent>;
  synced: Promise<InquirySyncEvent>;
  emit<T = unknown>(event: string, payload: unknown): Promise<T>;
}

/** A real socket.io-client device; resolves once connected (rejects on connect_error). */
export async function connectDevice(url: string, token: string, deviceName: string): Promise<TestDevice> {
  const socket = io(url, { auth: { token, deviceName }, transports: ['websocket'], reconnection: false });
  const received: { event: string; payload: unknown }[] = [];
  const queues = new Map<string, unknown[]>();
  const waiters = new Map<string, ((v: unknown) => void)[]>();
  const push = (event: string, payload: unknown) => {
    received.push({ event, payload });
    const waiting = waiters.get(event)?.shift();
    if (waiting) waiting(payload);
    else queues.set(event, [...(queues.get(event) ?? []), payload]);
  };
  const next = <T>(event: string) =>
    new Promise<T>((resolve, reject) => {
      const queued = queues.get(event)?.shift();
      if (queued !== undefined) return resolve(queued as T);
      const timer = setTimeout(() => reject(new Error(`no ${event} within 5 s`)), 5000);
      waiters.set(event, [
        ...(waiters.get(event) ?? []),
        (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
      ]);
    });
  for (const event of ['inquiry:new', 'inquiry:resolved', 'inquiry:sync', 'inquiry:updated']) {
    socket.on(event, (payload: unknown) => push(event, payload));
  }
  const synced = next<InquirySyncEvent>('inquiry:sync');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  return {
    socket,
    received,
    nextNew: () => next<DeviceInquiry>('inquiry:new'),
    nextResolved: () => next<InquiryResolvedEvent>('inquiry:resolved'),
    synced,
    emit: (event, payload) => socket.timeout(5000).emitWithAck(event, payload),
  };
}

/** A response's JSON body, typed by the test that reads it. */
export async function body<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
