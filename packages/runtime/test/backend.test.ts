import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  inquiryDatabasePath,
  MemoryInquiryStore,
  MemoryProxyStore,
  RedisDecisionLog,
  RedisInquiryStore,
  RedisProxyStore,
  RedisTaskStore,
  SqliteInquiryStore,
  SqliteProxyStore,
  SqliteTaskStore,
  StateLockedError,
} from '@hitl/store';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Backend, loadConfig, openBackend } from '../src/index.js';

const logger = pino({ level: 'silent' });
const SECRET = 'test-secret-that-is-long-enough-for-hs256!';

describe('openBackend: the one place the backend is chosen', () => {
  let stateDir: string;
  let redis: TestRedisServer;
  let admin: Redis;
  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'hitl-backend-'));
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    await admin.client('SETNAME', 'test-admin');
  });
  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
    await rm(stateDir, { recursive: true, force: true });
  });
  const open = (env: Record<string, string>): Backend =>
    openBackend(loadConfig({ HITL_SECRET: SECRET, HITL_STATE_DIR: stateDir, ...env }), { logger });

  it('memory: every store in this process, each made once', async () => {
    const backend = open({ HITL_STORE: 'memory' });
    expect(backend.kind).toBe('memory');
    expect(backend.redis).toBeUndefined();
    expect(backend.inquiries).toBeInstanceOf(MemoryInquiryStore);
    expect(backend.inquiries).toBe(backend.inquiries);
    expect(backend.proxy).toBeInstanceOf(MemoryProxyStore);
    expect(backend.decisionClaims).toBeUndefined();
    await backend.shutdown.closeAll();
  });

  it('sqlite: the state file opens on first use, the proxy keeps its own, and closeAll lets go of both', async () => {
    const dir = join(stateDir, 'sqlite');
    const env = { HITL_STATE_DIR: dir };
    const proxyOnly = open(env);
    expect(proxyOnly.kind).toBe('sqlite');
    expect(proxyOnly.proxy).toBeInstanceOf(SqliteProxyStore);
    // A proxy opens no inquiry file: a node may hold it beside the proxy.
    expect(existsSync(inquiryDatabasePath(dir))).toBe(false);
    const node = open(env);
    expect(node.inquiries).toBeInstanceOf(SqliteInquiryStore);
    expect(node.tasks).toBeInstanceOf(SqliteTaskStore);
    expect(node.database?.path).toBe(inquiryDatabasePath(dir));
    // Held by this open: a second one is refused until it is closed.
    expect(() => open(env).inquiries).toThrow(StateLockedError);
    await node.shutdown.closeAll();
    await proxyOnly.shutdown.closeAll();
    const again = open(env);
    expect(again.inquiries).toBeInstanceOf(SqliteInquiryStore);
    expect(again.proxy).toBeInstanceOf(SqliteProxyStore);
    await again.shutdown.closeAll();
  });

  it('redis: every store on the one client, and closeAll leaves no connection', async () => {
    const clients = async () =>
      ((await admin.client('LIST')) as string).split('\n').filter((line) => line.includes('id='));
    const backend = open({ REDIS_URL: redis.url });
    expect(backend.kind).toBe('redis');
    expect(backend.inquiries).toBeInstanceOf(RedisInquiryStore);
    expect(backend.tasks).toBeInstanceOf(RedisTaskStore);
    expect(backend.decisions).toBeInstanceOf(RedisDecisionLog);
    expect(backend.proxy).toBeInstanceOf(RedisProxyStore);
    expect(backend.database).toBeUndefined();
    await backend.revocations.ready();
    await backend.proxy.onCancel(() => undefined);
    expect((await clients()).length).toBeGreaterThan(1);
    await backend.shutdown.closeAll();
    await vi.waitFor(
      async () => expect(await clients()).toEqual([expect.stringContaining('name=test-admin')]),
      {
        timeout: 5000,
      },
    );
  });
});
