import { randomUUID } from 'node:crypto';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../src/core/rate-limit.js';
import { messageCount } from '../src/mcp/mcp-body.js';

describe('rate limit points', () => {
  it('spends a cost at once: a batch over the budget is refused as a whole', async () => {
    const limiter = createRateLimiter(5);
    expect((await limiter.consume('a', 5)).ok).toBe(true);
    expect((await limiter.consume('a')).ok).toBe(false);
    expect((await limiter.consume('b', 6)).ok).toBe(false);
    // A refused request still counts, like a refused single request always did.
    expect((await limiter.consume('b')).ok).toBe(false);
  });

  it('counts one point per JSON-RPC message in a body', () => {
    expect(messageCount({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(1);
    expect(messageCount(Array.from({ length: 100 }, (_, id) => ({ jsonrpc: '2.0', id })))).toBe(100);
    expect(messageCount([])).toBe(1);
    expect(messageCount(undefined)).toBe(1);
  });
});

describe('the shared limiter on Redis', () => {
  let server: TestRedisServer;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server?.stop();
  });
  const node = async () => {
    const client = new Redis(server.url);
    clients.push(client);
    await client.ping();
    return createRateLimiter(5, client);
  };

  it('shares one budget between nodes, refuses with the time left, and sets the window once', async () => {
    const [a, b] = [await node(), await node()];
    const admin = clients[0] as Redis;
    const key = `k-${randomUUID()}`;
    expect((await a.consume(key, 2)).ok).toBe(true);
    const ttl = await admin.pttl(`hitl:rate:${key}`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect((await b.consume(key, 3)).ok).toBe(true);
    const refused = await a.consume(key);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    }
    expect(await admin.get(`hitl:rate:${key}`)).toBe('6');
    // The window is not pushed back by later requests.
    expect(await admin.pttl(`hitl:rate:${key}`)).toBeLessThanOrEqual(ttl);
  });

  it('gives a counter that lost its expiry one again when it refuses', async () => {
    const limiter = await node();
    const admin = clients[0] as Redis;
    const key = `k-${randomUUID()}`;
    await admin.set(`hitl:rate:${key}`, '5');
    expect((await limiter.consume(key)).ok).toBe(false);
    expect(await admin.pttl(`hitl:rate:${key}`)).toBeGreaterThan(50_000);
  });
});
