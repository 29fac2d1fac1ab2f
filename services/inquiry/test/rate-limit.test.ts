import { randomUUID } from 'node:crypto';
import { messageCount } from '@hitl/mcp-http';
import {
  eventually,
  sleep,
  startRedisCluster,
  startRedisServer,
  type TestRedisCluster,
  type TestRedisServer,
} from '@hitl/store/testing';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/core/ports.js';
import { createRateLimiter, type RateLimiter } from '../src/core/rate-limit.js';
import { SharedBudget } from '../src/core/shared-rate-limit.js';

describe('rate limit points', () => {
  it('spends a cost at once: a batch over the budget is refused as a whole', async () => {
    const limiter = createRateLimiter(5);
    expect((await limiter.consume('a', 5)).ok).toBe(true);
    expect((await limiter.consume('a')).ok).toBe(false);
    expect((await limiter.consume('b', 6)).ok).toBe(false);
    // A refused request still counts, like a refused single request always did.
    expect((await limiter.consume('b')).ok).toBe(false);
  });

  it('gives back a refunded point in this process, and nothing for a key it never counted', async () => {
    const limiter = createRateLimiter(2);
    await limiter.refund('never');
    expect((await limiter.consume('never', 2)).ok).toBe(true);
    expect((await limiter.consume('never')).ok).toBe(false);
    expect((await limiter.consume('a', 2)).ok).toBe(true);
    await limiter.refund('a');
    expect((await limiter.consume('a')).ok).toBe(true);
    expect((await limiter.consume('a')).ok).toBe(false);
  });

  it('counts one point per JSON-RPC message in a body', () => {
    expect(messageCount({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(1);
    expect(messageCount(Array.from({ length: 100 }, (_, id) => ({ jsonrpc: '2.0', id })))).toBe(100);
    expect(messageCount([])).toBe(1);
    expect(messageCount(undefined)).toBe(1);
  });
});

/**
 * Redis's own count of the scripts it was sent (EVAL + EVALSHA) and of the window steps they ran
 * (HINCRBY into a live window, or the HSET that starts one).
 */
async function commandStats(admin: Redis): Promise<{ scripts: number; steps: number }> {
  const info = await admin.info('commandstats');
  const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  return { scripts: calls('eval') + calls('evalsha'), steps: calls('hincrby') + calls('hset') };
}

/** `workers` concurrent loops on each limiter, `perLimiter` requests each limiter; the accepted count. */
async function hammer(
  limiters: RateLimiter[],
  key: string,
  perLimiter: number,
  workers = 4,
): Promise<number> {
  let accepted = 0;
  await Promise.all(
    limiters.flatMap((limiter) => {
      let left = perLimiter;
      return Array.from({ length: workers }, async () => {
        while (left > 0) {
          left -= 1;
          if ((await limiter.consume(key)).ok) accepted += 1;
          // Let the other limiter's loops and the flush timer in between some requests.
          // time itself is under test: the flush timer must get turns between requests.
          if (left % 7 === 0) await sleep(1);
        }
      });
    }),
  );
  return accepted;
}

describe('the shared limiter on Redis', () => {
  let server: TestRedisServer;
  let admin: Redis;
  const clients: Redis[] = [];
  const limiters: RateLimiter[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
  });
  afterAll(async () => {
    await Promise.all(limiters.map((limiter) => limiter.close()));
    for (const client of [...clients, admin]) client.disconnect();
    await server?.stop();
  });
  const client = async () => {
    const connection = new Redis(server.url);
    clients.push(connection);
    await connection.ping();
    return connection;
  };
  const node = async (perMinute = 5) => {
    const limiter = createRateLimiter(perMinute, await client());
    limiters.push(limiter);
    return limiter;
  };
  /** The window's count in Redis (a hash: count, end). */
  const counter = async (key: string) => Number(await admin.hget(`hitl:rate:${key}`, 'count'));

  it('shares one budget between nodes, refuses with the time left, and sets the window once', async () => {
    const [a, b] = [await node(), await node()];
    const key = `k-${randomUUID()}`;
    expect((await a.consume(key, 2)).ok).toBe(true);
    const ttl = await admin.pttl(`hitl:rate:${key}`);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect((await b.consume(key, 3)).ok).toBe(true);
    // b has seen the count reach the budget (past its safe line of 4): it asks Redis, which refuses.
    const refused = await b.consume(key);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(ttl);
    }
    expect(await counter(key)).toBe(6);
    // a last saw 2, but a budget under 50 has no slice to spend on a stale view: a asks Redis too.
    expect((await a.consume(key)).ok).toBe(false);
    expect(await counter(key)).toBe(7);
    // The window is not pushed back by later requests.
    expect(await admin.pttl(`hitl:rate:${key}`)).toBeLessThanOrEqual(ttl);
  });

  it("ends a window when the node's clock says, also while Redis still holds it", async () => {
    let now = Date.now();
    const clock = { ...systemClock, now: () => now };
    const limiter = createRateLimiter(5, await client(), 'hitl:rate', { clock });
    limiters.push(limiter);
    const key = `k-${randomUUID()}`;
    expect((await limiter.consume(key, 5)).ok).toBe(true);
    const refused = await limiter.consume(key);
    expect(refused).toEqual({ ok: false, retryAfterMs: 60_000 });
    now += 59_999;
    expect(await limiter.consume(key)).toEqual({ ok: false, retryAfterMs: 1 });
    now += 1;
    // Redis keeps the key for its own minute yet; the window is over on the clock the node passed in.
    expect(await admin.exists(`hitl:rate:${key}`)).toBe(1);
    expect((await limiter.consume(key)).ok).toBe(true);
    expect(await counter(key)).toBe(1);
    expect(Number(await admin.hget(`hitl:rate:${key}`, 'end'))).toBe(now + 60_000);
  });

  it('gives back a refunded point in the open window, and none when no window is open', async () => {
    const limiter = await node(2);
    const key = `k-${randomUUID()}`;
    await limiter.refund(key);
    expect(await admin.exists(`hitl:rate:${key}`)).toBe(0);
    expect((await limiter.consume(key, 2)).ok).toBe(true);
    await limiter.refund(key);
    expect(await counter(key)).toBe(1);
    expect((await limiter.consume(key)).ok).toBe(true);
    expect((await limiter.consume(key)).ok).toBe(false);
  });

  for (const budget of [50, 1000]) {
    const slice = Math.floor(budget * 0.02);

    it(`two nodes under concurrent load at a budget of ${budget} accept at most budget + 2 slices, and count every point`, async () => {
      const [a, b] = [await node(budget), await node(budget)];
      const key = `k-${randomUUID()}`;
      const accepted = await hammer([a, b], key, budget);
      expect(accepted).toBeGreaterThanOrEqual(budget);
      expect(accepted).toBeLessThanOrEqual(budget + 2 * slice);
      // Every request's point reaches Redis, accepted or refused.
      await eventually(async () => (await counter(key)) === 2 * budget);
    });

    it(`two nodes that have seen the safe line crossed accept exactly the budget of ${budget}`, async () => {
      const [a, b] = [await node(budget), await node(budget)];
      const key = `k-${randomUUID()}`;
      const line = Math.floor(budget * 0.9);
      expect((await a.consume(key, line)).ok).toBe(true);
      expect((await b.consume(key)).ok).toBe(true);
      const accepted = await hammer([a, b], key, budget);
      expect(line + 1 + accepted).toBe(budget);
    });
  }

  it('sends far fewer scripts than requests well below the line, and the counter reaches the total', async () => {
    const limiter = await node(10_000);
    const key = `k-${randomUUID()}`;
    await admin.config('RESETSTAT');
    for (let i = 0; i < 500; i++) {
      expect((await limiter.consume(key)).ok).toBe(true);
      // time itself is under test: flush timers fire between bursts, so points are sent in several flushes.
      if (i % 50 === 0) await sleep(5);
    }
    await eventually(async () => (await counter(key)) === 500);
    const stats = await commandStats(admin);
    expect(stats.scripts).toBeGreaterThan(0);
    expect(stats.scripts).toBeLessThan(25);
    expect(stats.steps).toBe(stats.scripts);
  });

  it("sends every key's pending points of a flush in one script call, one step per key", async () => {
    const limiter = await node(10_000);
    const keys = Array.from({ length: 40 }, () => `k-${randomUUID()}`);
    for (const key of keys) await limiter.consume(key); // each key's first request asks Redis
    await admin.config('RESETSTAT');
    for (const key of keys) for (let i = 0; i < 3; i++) expect((await limiter.consume(key)).ok).toBe(true);
    await eventually(async () => (await Promise.all(keys.map(counter))).every((count) => count === 4));
    const stats = await commandStats(admin);
    expect(stats.scripts).toBe(1);
    expect(stats.steps).toBe(keys.length);
  });

  it('refuses with the time left in the window, locally once it knows, and never pushes the window back', async () => {
    const limiter = await node(5);
    const key = `k-${randomUUID()}`;
    expect((await limiter.consume(key, 5)).ok).toBe(true);
    const ttl = await admin.pttl(`hitl:rate:${key}`);
    const first = await limiter.consume(key);
    expect(first).toMatchObject({ ok: false });
    await admin.config('RESETSTAT');
    // time itself is under test: the time left counts down.
    await sleep(20);
    // Known to be over: refused here, the time left counting down, the point still counted.
    const second = await limiter.consume(key);
    expect(second).toMatchObject({ ok: false });
    if (!first.ok && !second.ok) {
      expect(first.retryAfterMs).toBeLessThanOrEqual(ttl);
      expect(second.retryAfterMs).toBeLessThan(first.retryAfterMs);
      expect(second.retryAfterMs).toBeGreaterThan(ttl - 1000);
    }
    expect((await commandStats(admin)).scripts).toBe(0);
    await eventually(async () => (await counter(key)) === 7);
    expect(await admin.pttl(`hitl:rate:${key}`)).toBeLessThanOrEqual(ttl);
    expect((await limiter.consume(key, 0)).ok).toBe(false);
  });

  it("keeps a bounded number of keys; a dropped key's unsent points still reach Redis", async () => {
    const budget = new SharedBudget(await client(), 100, 'hitl:rate', { maxKeys: 2 });
    const [k1, k2, k3] = [1, 2, 3].map((i) => `k${i}-${randomUUID()}`) as [string, string, string];
    expect(await budget.consume(k1, 1)).toEqual({ ok: true });
    expect(await budget.consume(k1, 1)).toEqual({ ok: true });
    expect(await budget.consume(k2, 1)).toEqual({ ok: true });
    await admin.config('RESETSTAT');
    expect(await budget.consume(k3, 1)).toEqual({ ok: true });
    await eventually(async () => (await counter(k1)) === 2);
    // The flush's reply makes k1 known again, so k2 (now the oldest) was dropped: k2 asks Redis again.
    expect((await commandStats(admin)).scripts).toBe(2);
    expect(await budget.consume(k2, 1)).toEqual({ ok: true });
    expect((await commandStats(admin)).scripts).toBe(3);
    // k3 made room for k2; k1 is still known and decided here.
    expect(await budget.consume(k1, 1)).toEqual({ ok: true });
    expect((await commandStats(admin)).scripts).toBe(3);
    await budget.close();
    expect((await commandStats(admin)).scripts).toBe(4);
    expect(await counter(k1)).toBe(3);
  });

  it('a flush Redis refuses drops its points and the key, without throwing out of the timer', async () => {
    const limiter = await node(5);
    const key = `k-${randomUUID()}`;
    expect((await limiter.consume(key)).ok).toBe(true);
    expect((await limiter.consume(key)).ok).toBe(true);
    // The pending point's INCRBY fails in Redis: "value is not an integer".
    await admin.hset(`hitl:rate:${key}`, 'count', 'x');
    // time itself is under test: the flush timer fires and Redis refuses it; nothing may throw meanwhile.
    await sleep(150);
    expect(await admin.hget(`hitl:rate:${key}`, 'count')).toBe('x');
    // The key was forgotten: the next request goes to Redis and sees the count there.
    await admin.hset(`hitl:rate:${key}`, 'count', '100');
    expect((await limiter.consume(key)).ok).toBe(false);
  });
});

describe('the shared limiter while Redis is away', () => {
  let server: TestRedisServer;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await server?.stop();
  });

  it('limits per node while Redis is down, and shares the budget again once it is back', async () => {
    const connect = async () => {
      // The node's own client options: fail fast while away, reconnect quickly.
      const client = new Redis(server.url, {
        maxRetriesPerRequest: 2,
        retryStrategy: (times: number) => Math.min(times * 100, 1000),
      });
      client.on('error', () => {});
      clients.push(client);
      await client.ping();
      return client;
    };
    const [ca, cb] = [await connect(), await connect()];
    const [a, b] = [createRateLimiter(5, ca), createRateLimiter(5, cb)];
    const key = `k-${randomUUID()}`;
    expect((await a.consume(key)).ok).toBe(true);
    // A point pending when Redis goes: its flush is held or fails, never thrown.
    expect((await a.consume(key)).ok).toBe(true);
    await server.kill();
    await eventually(() => ca.status !== 'ready' && cb.status !== 'ready');
    const down = `k-${randomUUID()}`;
    for (const limiter of [a, b]) {
      for (let i = 0; i < 5; i++) expect((await limiter.consume(down)).ok).toBe(true);
      expect((await limiter.consume(down)).ok).toBe(false);
    }
    // time itself is under test: flush timers fire while Redis is away; nothing may throw meanwhile.
    await sleep(150);
    await server.restart();
    await eventually(() => ca.status === 'ready' && cb.status === 'ready', 5000);
    const up = `k-${randomUUID()}`;
    expect((await a.consume(up, 3)).ok).toBe(true);
    expect((await b.consume(up, 2)).ok).toBe(true);
    expect((await b.consume(up)).ok).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('the shared limiter on a Redis Cluster', () => {
  let cluster: TestRedisCluster;
  const clients: Cluster[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await cluster?.stop();
  });

  it('flushes keys of different slots, one call per key', async () => {
    const [redis, admin] = [0, 1].map(() => new Cluster(cluster.nodes)) as [Cluster, Cluster];
    clients.push(redis, admin);
    await redis.ping();
    const limiter = createRateLimiter(1000, redis as unknown as Redis);
    // Many keys: they land in slots of all three masters, which one pipeline could not carry.
    const keys = Array.from({ length: 12 }, () => `k-${randomUUID()}`);
    for (const key of keys) for (let i = 0; i < 5; i++) expect((await limiter.consume(key)).ok).toBe(true);
    for (const key of keys)
      await eventually(async () => (await admin.hget(`hitl:rate:${key}`, 'count')) === '5');
    await limiter.close();
  });
});
