import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type RunningNode, startNode } from '@hitl/inquiry';
import {
  type AuditSink,
  type BackendSpec,
  type ProxyDecision,
  parsePolicy,
  type RunningProxy,
  startProxy,
} from '@hitl/mcp-proxy';
import type { DeviceInquiry } from '@hitl/protocol';
import { startRedisServer, TEST_AUDIT_KEY, type TestRedisServer } from '@hitl/store/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { pino } from 'pino';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll } from 'vitest';

export const SECRET = 'test-secret-that-is-long-enough-for-hs256!';
/** Shrunk tiers (each ≥ 1000 ms, device < service < client). */
export const TIERS = {
  HITL_DEVICE_TIMEOUT_MS: '1500',
  HITL_SERVICE_TIMEOUT_MS: '2500',
  HITL_CLIENT_TIMEOUT_MS: '6000',
};

const require = createRequire(import.meta.url);
/** server-everything, the real third-party backend, run by node from its installed package. */
export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
export const LEDGER = fileURLToPath(
  new URL('../../../mcp-proxy/test/fixtures/ledger-server.mjs', import.meta.url),
);

/** A real inquiry node (memory or its own Redis) on a loopback port. */
export interface World {
  node: RunningNode;
  redis?: TestRedisServer;
  stateDir: string;
  close(): Promise<void>;
}

/** `env` overrides the node's environment (e.g. other tiers; pass the same to the proxy). */
export async function startWorld(kind: 'memory' | 'redis', env: Record<string, string> = {}): Promise<World> {
  const stateDir = await mkdtemp(join(tmpdir(), 'proxy-test-'));
  const redis = kind === 'redis' ? await startRedisServer() : undefined;
  const node = await startNode(
    loadConfig({
      PORT: '0',
      HITL_SECRET: SECRET,
      HITL_AUDIT_KEY: TEST_AUDIT_KEY,
      HITL_STATE_DIR: stateDir,
      LOG_LEVEL: 'silent',
      HITL_SWEEP_MS: '100',
      HITL_HEARTBEAT_MS: '300',
      ...TIERS,
      ...(redis ? { REDIS_URL: redis.url } : {}),
      ...env,
    }),
  );
  return {
    node,
    redis,
    stateDir,
    close: async () => {
      await node.close();
      await redis?.stop();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

export interface TestProxy {
  proxy: RunningProxy;
  decisions: ProxyDecision[];
  /** An MCP SDK client for `user` (agent token) at the proxy. */
  agent(user: string): Promise<Client>;
  close(): Promise<void>;
}

/** A proxy in this process in front of `backend`, asking `world`'s node. */
export async function startTestProxy(
  world: World,
  backend: BackendSpec,
  policy: unknown,
  env: Record<string, string> = {},
  options: { defaultAudit?: boolean } = {},
): Promise<TestProxy> {
  const decisions: ProxyDecision[] = [];
  const audit: AuditSink | undefined = options.defaultAudit
    ? undefined
    : { record: (d) => void decisions.push(d) };
  const proxy = await startProxy({
    backend,
    policy: parsePolicy(policy),
    inquiryUrl: world.node.url,
    config: loadConfig({
      PORT: '0',
      HITL_SECRET: SECRET,
      HITL_AUDIT_KEY: TEST_AUDIT_KEY,
      HITL_STATE_DIR: world.stateDir,
      // Several proxies share a world's state dir here; the single-process SQLite file is tested on its own.
      HITL_STORE: 'memory',
      LOG_LEVEL: 'silent',
      ...TIERS,
      ...(world.redis ? { REDIS_URL: world.redis.url } : {}),
      ...env,
    }),
    logger: pino({ level: 'silent' }),
    ...(audit ? { audit } : {}),
  });
  const clients: Client[] = [];
  return {
    proxy,
    decisions,
    async agent(user) {
      const client = new Client({ name: 'test-agent', version: '1.0.0' });
      const token = await world.node.tokens.sign({ sub: user, role: 'agent', name: 'test agent' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await proxy.close();
    },
  };
}

/** A raw JSON-RPC POST to a proxy's /mcp (`url` is its base URL), as an agent's client sends it. */
export { postMcp } from '@hitl/inquiry/testing';

/**
 * A fresh scratch folder (ledgers, directory files), made before the tests of the scope this is
 * called in and removed after them (that scope's vitest hooks); call the getter in a hook or a test.
 */
export function scratchDir(prefix: string): () => string {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/** A ledger backend writing to a fresh file; `entries()` reads what really ran. */
export async function ledgerBackend(
  dir: string,
): Promise<{ spec: BackendSpec; entries(): Promise<unknown[]> }> {
  const file = join(dir, `ledger-${Math.random().toString(36).slice(2)}.jsonl`);
  await writeFile(file, '');
  const { readFile } = await import('node:fs/promises');
  return {
    spec: { kind: 'command', command: `node ${LEDGER}`, name: 'ledger', env: { LEDGER_FILE: file } },
    entries: async () =>
      (await readFile(file, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown),
  };
}

/** A ledger backend, as {@link ledgerBackend} makes it. */
export type Ledger = Awaited<ReturnType<typeof ledgerBackend>>;

/**
 * A world of `kind` for the tests of the scope this is called in, started before them and closed
 * after them (that scope's vitest hooks); call the getter in a hook or a test.
 */
export function useWorld(kind: 'memory' | 'redis', env: Record<string, string> = {}): () => World {
  let world: World | undefined;
  beforeAll(async () => {
    world = await startWorld(kind, env);
  });
  afterAll(async () => {
    await world?.close();
  });
  return () => {
    if (!world) throw new Error('useWorld: the world is read before its beforeAll ran');
    return world;
  };
}

/** One proxy, or two on one store. */
type ProxyTuple<N extends 1 | 2> = N extends 2 ? [TestProxy, TestProxy] : [TestProxy];

/** What {@link useLedgerProxies} started; `device` is there when the setup named its user. */
export interface LedgerProxies<N extends 1 | 2, D extends string | undefined = undefined> {
  world: World;
  ledger: Ledger;
  proxies: ProxyTuple<N>;
  device: D extends string ? TestDevice : undefined;
}

/**
 * For the tests of the scope this is called in: a world of `kind`, a ledger in `dir()`, and `count`
 * proxies (default 1) with `policy` in front of it (`env` goes to the node and to every proxy), and
 * when `device` names a user, a device of that user connected to the node; started before them and
 * closed after them; `started` receives them.
 */
export function useLedgerProxies<N extends 1 | 2 = 1, D extends string | undefined = undefined>(
  setup: {
    kind: 'memory' | 'redis';
    dir: () => string;
    policy: unknown;
    count?: N;
    env?: Record<string, string>;
    device?: D;
  },
  started: (parts: LedgerProxies<N, D>) => void,
): void {
  let world: World | undefined;
  let proxies: TestProxy[] = [];
  let device: TestDevice | undefined;
  beforeAll(async () => {
    const { kind, dir, policy, count = 1, env = {} } = setup;
    const running = await startWorld(kind, env);
    world = running;
    const ledger = await ledgerBackend(dir());
    proxies = await Promise.all(
      Array.from({ length: count }, () => startTestProxy(running, ledger.spec, policy, env)),
    );
    if (setup.device !== undefined) device = await connectDevice(running, setup.device);
    started({
      world: running,
      ledger,
      proxies: proxies as ProxyTuple<N>,
      device: device as LedgerProxies<N, D>['device'],
    });
  });
  afterAll(async () => {
    device?.socket.disconnect();
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await world?.close();
  });
}

/** A device event's ack, as a test reads it. */
export interface Ack {
  ok: boolean;
  status?: string;
  error?: { code: string; message: string };
}

export interface TestDevice {
  socket: Socket;
  /** The next approval pushed to this device (waits up to 5 s). */
  nextInquiry(): Promise<DeviceInquiry>;
  /** Every inquiry pushed so far. */
  seen: DeviceInquiry[];
  answer(inquiryId: string, response: string): Promise<unknown>;
  refuse(inquiryId: string): Promise<unknown>;
  /** Any device event with its ack (answers with a reason, edited arguments, `allowFor`). */
  emit(event: string, payload: unknown): Promise<Ack>;
}

/** A real socket.io-client device of `user` on the node. */
export async function connectDevice(world: World, user: string, name = 'phone'): Promise<TestDevice> {
  const token = await world.node.tokens.sign({ sub: user, role: 'device', name });
  const socket = io(world.node.url, {
    auth: { token, deviceName: name },
    transports: ['websocket'],
    reconnection: false,
  });
  const seen: DeviceInquiry[] = [];
  const waiting: ((inquiry: DeviceInquiry) => void)[] = [];
  let read = 0;
  socket.on('inquiry:new', (inquiry: DeviceInquiry) => {
    seen.push(inquiry);
    waiting.shift()?.(inquiry);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('inquiry:sync', () => resolve());
    socket.once('connect_error', reject);
  });
  return {
    socket,
    seen,
    nextInquiry: () =>
      new Promise<DeviceInquiry>((resolve, reject) => {
        if (read < seen.length) return resolve(seen[read++] as DeviceInquiry);
        const timer = setTimeout(() => reject(new Error('no inquiry:new within 5 s')), 5000);
        waiting.push((inquiry) => {
          clearTimeout(timer);
          read++;
          resolve(inquiry);
        });
      }),
    answer: (inquiryId, response) =>
      socket.timeout(5000).emitWithAck('inquiry:answer', { inquiryId, response }),
    refuse: (inquiryId) => socket.timeout(5000).emitWithAck('inquiry:refuse', { inquiryId }),
    emit: (event, payload) => socket.timeout(5000).emitWithAck(event, payload) as Promise<Ack>,
  };
}

/** The text of a tool result's first content item. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.find((c) => c.type === 'text')?.text ?? '';
}
