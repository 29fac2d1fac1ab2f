import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@hitl/runtime';
import { startRedisServer, TEST_AUDIT_KEY, type TestRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startNode } from '../src/node.js';

const CHILD = fileURLToPath(new URL('./fixtures/failed-start-child.mjs', import.meta.url));

/**
 * Runs a node whose start fails in a process of its own and resolves with what it printed once that
 * process exits by itself: it only can when nothing (socket, server, timer) is left open.
 */
async function failInChild(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [CHILD], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += String(chunk);
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out };
}

describe('a node whose start fails half-way (its port is taken), on Redis', () => {
  let redis: TestRedisServer;
  let admin: Redis;
  let taken: Server;
  let stateDir: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    await admin.client('SETNAME', 'test-admin');
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    stateDir = await mkdtemp(join(tmpdir(), 'hitl-failed-start-'));
  });
  afterAll(async () => {
    admin?.disconnect();
    taken?.close();
    await redis?.stop();
    await rm(stateDir, { recursive: true, force: true });
  });

  it('rejects, and closes what it had opened: no Redis connection, timer or socket is left behind', async () => {
    const clients = async () =>
      ((await admin.client('LIST')) as string).split('\n').filter((line) => line.includes('id='));
    expect(await clients()).toHaveLength(1);
    const env = {
      PORT: String((taken.address() as { port: number }).port),
      HOST: '127.0.0.1',
      HITL_SECRET: 'test-secret-that-is-long-enough-for-hs256!',
      HITL_STATE_DIR: stateDir,
      LOG_LEVEL: 'silent',
      REDIS_URL: redis.url,
      HITL_AUDIT_KEY: TEST_AUDIT_KEY,
    };
    await expect(startNode(loadConfig(env))).rejects.toThrow(/EADDRINUSE/);
    // Every connection the node made (store, subscribers, revocation feed, push) is gone...
    await vi.waitFor(
      async () => expect(await clients()).toEqual([expect.stringContaining('name=test-admin')]),
      {
        timeout: 5000,
      },
    );
    // ...and so are its timers (sweeps, the revocation poll) and sockets: a process of its own exits.
    expect(await failInChild(env)).toEqual({ code: 0, out: 'rejected EADDRINUSE\n' });
  });
});

describe('a node whose start fails half-way (its port is taken), on its SQLite state file', () => {
  let taken: Server;
  let stateDir: string;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    stateDir = await mkdtemp(join(tmpdir(), 'hitl-failed-start-sqlite-'));
  });
  afterAll(async () => {
    taken?.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  it('rejects, and lets go of the state file: the next start on the same folder opens it', async () => {
    const env = {
      HOST: '127.0.0.1',
      HITL_SECRET: 'test-secret-that-is-long-enough-for-hs256!',
      HITL_STATE_DIR: stateDir,
      LOG_LEVEL: 'silent',
    };
    const port = String((taken.address() as { port: number }).port);
    await expect(startNode(loadConfig({ ...env, PORT: port }))).rejects.toThrow(/EADDRINUSE/);
    // Nothing keeps a process up after such a start: a process of its own exits.
    expect(await failInChild({ ...env, PORT: port })).toEqual({ code: 0, out: 'rejected EADDRINUSE\n' });
    // A state file still held would refuse this start (StateLockedError).
    const node = await startNode(loadConfig({ ...env, PORT: '0' }));
    await node.close();
  });
});
