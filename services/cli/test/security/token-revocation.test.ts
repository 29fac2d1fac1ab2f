import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type NodeProcess, SECRET, spawnNode } from '../node-process.js';
import { watchSocket } from './socket-helpers.js';

const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
const run = promisify(execFile);

/** Runs `hitl …` with the shared secret; resolves with its exit code and output. */
async function hitl(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HITL_SECRET: SECRET, LOG_LEVEL: 'warn', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function createToken(user: string, role: string, extra: string[] = []) {
  const made = await hitl(['token', 'create', '--user', user, '--role', role, ...extra]);
  expect(made.code, made.stderr).toBe(0);
  const token = made.stdout.trim();
  const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString());
  return { token, claims: claims as { jti?: string; exp?: number; iat: number } };
}

const rest = (url: string, token: string) =>
  fetch(`${url}/api/inquiries`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

const mcp = (url: string, token: string) =>
  fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  }).then((r) => r.status);

/** Every check holds within `ms` of now (the revocation's reported completion). */
async function allWithin(ms: number, checks: (() => Promise<boolean> | boolean)[]) {
  const started = Date.now();
  await Promise.all(checks.map((check) => eventually(check, ms)));
  return Date.now() - started;
}

describe('token lifecycle: exp, jti and revocation', { timeout: 60_000 }, () => {
  let redis: TestRedisServer;
  let nodes: NodeProcess[] = [];
  let solo: NodeProcess;
  beforeAll(async () => {
    redis = await startRedisServer();
    const url = redis.url;
    [nodes, solo] = await Promise.all([
      Promise.all([0, 1].map(() => spawnNode({ REDIS_URL: url }))),
      spawnNode({}),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([...nodes, solo].map((node) => node?.kill('SIGKILL')));
    await redis?.stop();
  });

  it('hitl token create puts a jti and a 90-day exp on every token; --expires never says none', async () => {
    const { claims } = await createToken('life-1', 'device');
    expect(claims.jti).toMatch(/^[\w-]{16,}$/);
    expect(claims.exp).toBeGreaterThanOrEqual(claims.iat + 90 * 86400 - 5);
    expect(claims.exp).toBeLessThanOrEqual(claims.iat + 90 * 86400 + 5);
    const short = await createToken('life-1', 'device', ['--expires', '2h']);
    expect(short.claims.exp).toBe(short.claims.iat + 7200);
    const never = await createToken('life-1', 'device', ['--expires', 'never']);
    expect(never.claims.exp).toBeUndefined();
    expect(never.claims.jti).not.toBe(claims.jti);
  });

  it('revoke --jti: both nodes answer that token 401 within 1 s and drop its sockets; other tokens work', async () => {
    const [a, b] = nodes as [NodeProcess, NodeProcess];
    const doomed = await createToken('life-2', 'device');
    const other = await createToken('life-2', 'device');
    const sockets = [a, b].map((node) => watchSocket(node.url, { token: doomed.token }));
    for (const s of sockets) expect(await s.outcome).toEqual({ connected: true });
    expect([await rest(a.url, doomed.token), await rest(b.url, doomed.token)]).toEqual([200, 200]);

    const revoked = await hitl(['token', 'revoke', '--jti', doomed.claims.jti ?? ''], {
      REDIS_URL: redis.url,
    });
    expect(revoked.code, revoked.stderr).toBe(0);
    await allWithin(1000, [
      async () => (await rest(a.url, doomed.token)) === 401,
      async () => (await rest(b.url, doomed.token)) === 401,
      ...sockets.map((s) => () => !s.socket.connected),
    ]);
    expect([await rest(a.url, other.token), await rest(b.url, other.token)]).toEqual([200, 200]);
    const again = watchSocket(b.url, { token: doomed.token });
    expect(await again.outcome).toMatchObject({ connected: false, data: { code: 'unauthorized' } });
  });

  it('revoke --user: every token of the user issued before now is refused on /mcp, REST and sockets', async () => {
    const [a, b] = nodes as [NodeProcess, NodeProcess];
    const agent = await createToken('life-3', 'agent', ['--expires', 'never']);
    const device = await createToken('life-3', 'device');
    const bystander = await createToken('life-3b', 'device');
    const socket = watchSocket(a.url, { token: device.token });
    expect(await socket.outcome).toEqual({ connected: true });
    expect(await mcp(b.url, agent.token)).toBe(200);

    const revoked = await hitl(['token', 'revoke', '--user', 'life-3'], { REDIS_URL: redis.url });
    expect(revoked.code, revoked.stderr).toBe(0);
    await allWithin(1000, [
      async () => (await mcp(a.url, agent.token)) === 401,
      async () => (await mcp(b.url, agent.token)) === 401,
      async () => (await rest(b.url, device.token)) === 401,
      () => !socket.socket.connected,
    ]);
    expect(await rest(a.url, bystander.token)).toBe(200);
  });

  it('embedded mode: revoke --url asks the running node, which refuses the token within 1 s', async () => {
    const doomed = await createToken('life-4', 'device');
    expect(await rest(solo.url, doomed.token)).toBe(200);
    const socket = watchSocket(solo.url, { token: doomed.token });
    expect(await socket.outcome).toEqual({ connected: true });
    const refused = await hitl(['token', 'revoke', '--jti', doomed.claims.jti ?? '']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--url/);
    const revoked = await hitl(['token', 'revoke', '--jti', doomed.claims.jti ?? '', '--url', solo.url]);
    expect(revoked.code, revoked.stderr).toBe(0);
    await allWithin(1000, [
      async () => (await rest(solo.url, doomed.token)) === 401,
      () => !socket.socket.connected,
    ]);
  });
});
