import { request } from 'node:http';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll } from 'vitest';
import { type NodeProcess, spawnNode, tokens } from './node-process.js';

export interface JsonReply {
  status: number;
  body: Record<string, unknown>;
}

/**
 * An HTTP request from a chosen loopback source address (127.0.0.x), so each test is its own
 * "address" for the per-address limit on wrong pairing codes.
 */
export function call(
  method: string,
  url: string,
  options: { token?: string; body?: unknown; from?: string } = {},
): Promise<JsonReply> {
  const data = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        localAddress: options.from ?? '127.0.0.1',
        headers: {
          ...(data !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** `POST /api/pairings` with a device token: the 201's body. */
export async function makePairing(
  url: string,
  token: string,
): Promise<{ code: string; url: string; expiresAt: number; pairingId: string }> {
  const made = await call('POST', `${url}/api/pairings`, { token });
  if (made.status !== 201) throw new Error(`POST /api/pairings: ${made.status} ${JSON.stringify(made.body)}`);
  return made.body as { code: string; url: string; expiresAt: number; pairingId: string };
}

/** `POST /api/pairings/claim` from `from`. */
export const claim = (url: string, code: string, deviceName: string, from?: string) =>
  call('POST', `${url}/api/pairings/claim`, { body: { code, deviceName }, ...(from ? { from } : {}) });

/** A token's claims, unverified (the test reads what the node signed). */
export const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as {
    sub: string;
    role: string;
    jti: string;
    iat: number;
    exp?: number;
    name?: string;
  };

/** A device token of `user` named `name`, signed by the test's secret. */
export const deviceToken = (user: string, name = 'Laptop') =>
  tokens.sign({ sub: user, role: 'device', name });

/** Two nodes on one Redis (`a`, `b`) and one on the embedded store (`solo`). */
export interface PairingNodes {
  a: NodeProcess;
  b: NodeProcess;
  solo: NodeProcess;
}

/**
 * Starts a test's redis-server and nodes A, B (on it; B with `bEnv` too) and solo (embedded) before its
 * tests, one at a time (three processes booting at once on a busy 2-core machine can take over the time
 * spawnNode allows each), hands them to `started`, and stops them all after.
 */
export function usePairingNodes(bEnv: Record<string, string>, started: (nodes: PairingNodes) => void): void {
  let redis: TestRedisServer | undefined;
  let nodes: Partial<PairingNodes> = {};
  beforeAll(async () => {
    redis = await startRedisServer();
    nodes.a = await spawnNode({ REDIS_URL: redis.url });
    nodes.b = await spawnNode({ REDIS_URL: redis.url, ...bEnv });
    nodes.solo = await spawnNode({});
    started(nodes as PairingNodes);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([nodes.a, nodes.b, nodes.solo].map((node) => node?.kill('SIGKILL')));
    await redis?.stop();
    nodes = {};
  });
}
