import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startNode } from '../src/node.js';

/** The handles that keep a process alive: sockets, servers and timers (not the test runner's own). */
const liveHandles = () =>
  process
    .getActiveResourcesInfo()
    .filter((kind) => kind === 'Timeout' || kind === 'TCPSocketWrap' || kind === 'TCPServerWrap').length;

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
    const before = liveHandles();
    const config = loadConfig({
      PORT: String((taken.address() as { port: number }).port),
      HOST: '127.0.0.1',
      HITL_SECRET: 'test-secret-that-is-long-enough-for-hs256!',
      HITL_STATE_DIR: stateDir,
      LOG_LEVEL: 'silent',
      REDIS_URL: redis.url,
    });
    await expect(startNode(config)).rejects.toThrow(/EADDRINUSE/);
    // Every connection the node made (store, subscribers, revocation feed, push) is gone...
    await vi.waitFor(
      async () => expect(await clients()).toEqual([expect.stringContaining('name=test-admin')]),
      {
        timeout: 5000,
      },
    );
    // ...and so are its timers (sweeps, the revocation poll) and sockets: nothing keeps the process up.
    await vi.waitFor(() => expect(liveHandles()).toBeLessThanOrEqual(before), { timeout: 5000 });
  });
});
