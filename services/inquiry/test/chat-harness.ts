import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Role } from '@hitl/protocol';
import { loadConfig } from '@hitl/runtime';
import { startRedisServer, TEST_AUDIT_KEY, type TestRedisServer } from '@hitl/store/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type ClientCapabilities,
  type ClientNotification,
  type ClientRequest,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { type RunningNode, startNode } from '../src/node.js';
import { connectDevice, type TestDevice } from '../src/testing/device.js';
import { postMcp } from '../src/testing/post-mcp.js';

const SECRET = 'test-secret-that-is-long-enough-for-hs256!';

/** A node whose log lines are kept (JSON objects, info and up) for the test to read. */
export interface ChatNode {
  node: RunningNode;
  url: string;
  lines: Record<string, unknown>[];
  token(user: string, role: Role, name?: string): Promise<string>;
  device(user: string, name?: string): Promise<TestDevice>;
  close(): Promise<void>;
}

/** Starts a node (memory store unless `REDIS_URL` or `HITL_STORE` say otherwise) with its log kept. */
export async function startChatNode(env: Record<string, string> = {}): Promise<ChatNode> {
  const stateDir = await mkdtemp(join(tmpdir(), 'hitl-chat-'));
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const config = loadConfig({
    PORT: '0',
    HITL_SECRET: SECRET,
    HITL_STATE_DIR: stateDir,
    HITL_SWEEP_MS: '100',
    HITL_STORE: 'memory',
    HITL_AUDIT_KEY: TEST_AUDIT_KEY,
    ...env,
  });
  const node = await startNode(config, { logger });
  const devices: TestDevice[] = [];
  const token = (user: string, role: Role, name?: string) =>
    node.tokens.sign({ sub: user, role, ...(name ? { name } : {}) });
  return {
    node,
    url: node.url,
    lines,
    token,
    async device(user, name = 'Phone') {
      const device = await connectDevice(node.url, await token(user, 'device'), name);
      devices.push(device);
      return device;
    },
    async close() {
      for (const device of devices) device.socket.disconnect();
      await node.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** Two nodes on one fresh redis-server. */
export async function startChatPair(env: Record<string, string> = {}) {
  const redis: TestRedisServer = await startRedisServer();
  const a = await startChatNode({ REDIS_URL: redis.url, ...env });
  const b = await startChatNode({ REDIS_URL: redis.url, ...env });
  return {
    a,
    b,
    redis,
    close: async () => {
      await Promise.all([a.close(), b.close()]);
      await redis.stop();
    },
  };
}

/** One request the balancer passed on: to which backend, and what its JSON-RPC body held. */
export interface Routed {
  target: number;
  httpMethod: string;
  /** `request:<method>`, `notification:<method>`, `response` per message. */
  messages: string[];
}

/**
 * A small round-robin balancer in front of `targets`: each HTTP request goes to the next backend in
 * turn, its body and response streamed through (SSE included), so consecutive POSTs of one client
 * land on different nodes. `routes` records where each went.
 */
export async function startBalancer(targets: string[]) {
  const routes: Routed[] = [];
  let next = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const target = next++ % targets.length;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      routes.push({ target, httpMethod: req.method ?? 'GET', messages: describe(body) });
      const upstream = request(
        `${targets[target]}${req.url ?? '/'}`,
        { method: req.method, headers: req.headers },
        (reply) => {
          res.writeHead(reply.statusCode ?? 502, reply.headers);
          reply.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function describe(body: Buffer): string[] {
  if (body.length === 0) return [];
  try {
    const parsed = JSON.parse(body.toString()) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).map((m: { method?: string; id?: unknown }) =>
      m.method === undefined
        ? 'response'
        : m.id === undefined
          ? `notification:${m.method}`
          : `request:${m.method}`,
    );
  } catch {
    return ['unparsed'];
  }
}

export type ElicitHandler = (
  request: ElicitRequest,
  extra: RequestHandlerExtra<ClientRequest, ClientNotification>,
) => Promise<ElicitResult>;

/** The official SDK client over real HTTP, declaring `capabilities` and answering elicitations with `onElicit`. */
export async function chatClient(
  url: string,
  token: string,
  options: { name?: string; capabilities?: ClientCapabilities; onElicit?: ElicitHandler } = {},
) {
  const capabilities = options.capabilities ?? { elicitation: { form: {} } };
  const client = new Client({ name: options.name ?? 'Test Chat', version: '1.0.0' }, { capabilities });
  if (capabilities.elicitation) {
    client.setRequestHandler(
      ElicitRequestSchema,
      options.onElicit ?? (async () => ({ action: 'cancel' }) satisfies ElicitResult),
    );
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

/** One elicitation the client got: the request, its JSON-RPC id, and its signal (aborted when withdrawn). */
export interface Elicited {
  request: ElicitRequest;
  id: string | number;
  signal: AbortSignal;
}

/** What a test's elicitation handler saw, and a way to answer each one when the test says so. */
export function elicitations() {
  const seen: Elicited[] = [];
  const waiting: ((e: Elicited) => void)[] = [];
  let answer: (request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult> = async () => ({
    action: 'cancel',
  });
  const handler: ElicitHandler = (request, extra) => {
    const entry = { request, id: extra.requestId, signal: extra.signal };
    seen.push(entry);
    waiting.shift()?.(entry);
    return answer(request, extra.signal);
  };
  return {
    handler,
    seen,
    /** The next elicitation (one already seen and not yet taken counts). */
    next: (taken = 0) =>
      seen.length > taken
        ? Promise.resolve(seen[taken] as Elicited)
        : new Promise<Elicited>((resolve) => waiting.push(resolve)),
    answerWith(fn: (request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>) {
      answer = fn;
    },
  };
}

/** Resolves when `signal` aborts (the server withdrew the elicitation). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) =>
    signal.aborted ? resolve(signal.reason) : signal.addEventListener('abort', () => resolve(signal.reason)),
  );
}

/** The first kept log line whose message contains `text`. */
export function logLine(lines: Record<string, unknown>[], text: string): Record<string, unknown> | undefined {
  return lines.find((line) => typeof line.msg === 'string' && line.msg.includes(text));
}

/** A raw JSON-RPC POST to a node's `/mcp`, naming `session` (`Mcp-Session-Id`) when given. */
export function postInSession(
  url: string,
  token: string,
  body: unknown,
  session?: string,
): Promise<Response> {
  return postMcp(url, token, body, session);
}

/** Two nodes on one redis-server behind a round-robin balancer, for one test file (filled in beforeAll). */
export function useChatPairBehindBalancer() {
  const parts = {} as { a: ChatNode; b: ChatNode; balancer: Awaited<ReturnType<typeof startBalancer>> };
  let pair: Awaited<ReturnType<typeof startChatPair>> | undefined;
  beforeAll(async () => {
    pair = await startChatPair();
    parts.a = pair.a;
    parts.b = pair.b;
    parts.balancer = await startBalancer([pair.a.url, pair.b.url]);
  });
  afterAll(async () => {
    await parts.balancer?.close();
    await pair?.close();
  });
  return parts;
}
