import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type NodeProcess, SECRET, spawnNode } from '../node-process.js';
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

/**
 * The fallback re-read of revocations, set far beyond any test here: a token refused during a test
 * was refused because the revocation reached that process by its change feed (the push path).
 */
const NO_POLL = { HITL_REVOCATION_POLL_MS: String(3_600_000) };

/** Every check comes to hold; a revocation whose push was lost leaves one false until this times out. */
async function allRefused(checks: (() => Promise<boolean> | boolean)[]) {
  await Promise.all(
    checks.map((check) =>
      vi.waitFor(async () => expect(await check()).toBe(true), { timeout: 10_000, interval: 50 }),
    ),
  );
}

describe('token lifecycle: exp, jti and revocation', { timeout: 60_000 }, () => {
  let redis: TestRedisServer;
  const nodes: NodeProcess[] = [];
  let solo: NodeProcess;
  const soloDir = mkdtempSync(join(tmpdir(), 'hitl-solo-'));
  let decide: { child: ChildProcess; url: string };
  beforeAll(async () => {
    redis = await startRedisServer();
    const url = redis.url;
    // One at a time: four processes booting at once on a busy 2-core machine can take over the
    // 15 s spawnNode allows each.
    for (const env of [
      { REDIS_URL: url, ...NO_POLL },
      { REDIS_URL: url, ...NO_POLL },
    ])
      nodes.push(await spawnNode(env));
    solo = await spawnNode({ HITL_STATE_DIR: soloDir, ...NO_POLL });
    decide = await spawnDecide(url);
  }, 120_000);
  afterAll(async () => {
    decide?.child.kill('SIGKILL');
    await Promise.all([...nodes, solo].map((node) => node?.kill('SIGKILL')));
    await redis?.stop();
    rmSync(soloDir, { recursive: true, force: true });
  });

  /** `hitl decide` on the nodes' Redis: it checks ops tokens, so it honours revocations too. */
  async function spawnDecide(redisUrl: string) {
    const child = spawn(process.execPath, [BIN, 'decide'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HITL_SECRET: SECRET,
        REDIS_URL: redisUrl,
        LOG_LEVEL: 'warn',
        ...NO_POLL,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new Error(`hitl decide did not start: ${seen}`)), 30_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = seen.match(/decision agent at (http:\/\/\S+)/);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    return { child, url };
  }

  /** An empty body is invalid input (400) for an admitted token, 401 for a refused one. */
  const decideStatus = (token: string) =>
    fetch(`${decide.url}/v1/decide`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    }).then((r) => r.status);

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

  it('revoke --jti: the change feed brings it to both nodes: they answer that token 401 and drop its sockets; other tokens work', async () => {
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
    await allRefused([
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
    const ops = await createToken('life-3', 'ops');
    const bystander = await createToken('life-3b', 'device');
    const socket = watchSocket(a.url, { token: device.token });
    expect(await socket.outcome).toEqual({ connected: true });
    expect(await mcp(b.url, agent.token)).toBe(200);
    expect(await decideStatus(ops.token)).toBe(400);

    const revoked = await hitl(['token', 'revoke', '--user', 'life-3'], { REDIS_URL: redis.url });
    expect(revoked.code, revoked.stderr).toBe(0);
    await allRefused([
      async () => (await mcp(a.url, agent.token)) === 401,
      async () => (await mcp(b.url, agent.token)) === 401,
      async () => (await rest(b.url, device.token)) === 401,
      async () => (await decideStatus(ops.token)) === 401,
      () => !socket.socket.connected,
    ]);
    expect(await rest(a.url, bystander.token)).toBe(200);
  });

  it('embedded mode: revoke --url asks the running node, which refuses the token at once', async () => {
    const doomed = await createToken('life-4', 'device');
    expect(await rest(solo.url, doomed.token)).toBe(200);
    const socket = watchSocket(solo.url, { token: doomed.token });
    expect(await socket.outcome).toEqual({ connected: true });
    const refused = await hitl(['token', 'revoke', '--jti', doomed.claims.jti ?? ''], {
      HITL_STATE_DIR: soloDir,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--url/);
    // It says where the embedded node keeps revocations: its state file, not its memory.
    expect(refused.stderr).toContain(`${soloDir}/hitl.db`);
    expect(refused.stderr).not.toMatch(/memory/);
    const revoked = await hitl(['token', 'revoke', '--jti', doomed.claims.jti ?? '', '--url', solo.url]);
    expect(revoked.code, revoked.stderr).toBe(0);
    await allRefused([
      async () => (await rest(solo.url, doomed.token)) === 401,
      () => !socket.socket.connected,
    ]);
    // The durable embedded store keeps the revocation: still refused after a kill -9 and a restart.
    await solo.kill('SIGKILL');
    solo = await spawnNode({ HITL_STATE_DIR: soloDir, ...NO_POLL });
    expect(await rest(solo.url, doomed.token)).toBe(401);
  });
});
