import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type NodeProcess, spawnNode, tokens } from '../node-process.js';
import { claim, makePairing } from '../pairing-helpers.js';

const BURST = 300;
/** Well formed (the pairing alphabet), so the node looks it up. */
const WRONG = 'ZZZZ2345';
const WRONG_CODES_PER_MIN = 10;

/** Round 3, item 3: the wrong-code limit holds under a burst; the point is spent before the lookup. */
describe('security: a burst of wrong pairing codes looks up at most 10 of them', { timeout: 120_000 }, () => {
  let redis: TestRedisServer;
  let onRedis: NodeProcess;
  let embedded: NodeProcess;
  let admin: Redis;
  let monitor: Redis;
  /** The pairing lookups Redis ran (the claim script reads `pairing:{p:<hash>}`). */
  let lookups = 0;
  const heard = new Set<string>();

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = new Redis(redis.url);
    monitor = await admin.monitor();
    monitor.on('monitor', (_time: string, args: string[]) => {
      // The script's call, not the GET it runs (MONITOR lists both).
      const script = /^eval/i.test(args[0] ?? '');
      if (script && args.some((arg) => arg.includes('pairing:{p:'))) lookups += 1;
      if (args[0]?.toLowerCase() === 'echo') heard.add(String(args[1]));
    });
    [onRedis, embedded] = await Promise.all([spawnNode({ REDIS_URL: redis.url }), spawnNode({})]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([onRedis, embedded].map((node) => node?.kill()));
    monitor?.disconnect();
    admin?.disconnect();
    await redis?.stop();
  });

  /** Redis runs commands one at a time: once MONITOR shows this ECHO, it has shown every command before it. */
  async function drainMonitor(): Promise<void> {
    const mark = `drained-${Math.random()}`;
    await admin.echo(mark);
    await eventually(() => heard.has(mark));
  }

  async function burst(url: string, from: string): Promise<Record<number, number>> {
    const replies = await Promise.all(Array.from({ length: BURST }, () => claim(url, WRONG, 'Phone', from)));
    const statuses: Record<number, number> = {};
    for (const { status } of replies) statuses[status] = (statuses[status] ?? 0) + 1;
    return statuses;
  }

  it(`on Redis: ${BURST} concurrent wrong codes run at most ${WRONG_CODES_PER_MIN} lookups, then a right code is 429`, async () => {
    const from = '127.0.0.31';
    await drainMonitor();
    lookups = 0;
    const statuses = await burst(onRedis.url, from);
    await drainMonitor();
    expect(Object.keys(statuses).sort()).toEqual(['400', '429']);
    expect(statuses[400]).toBeLessThanOrEqual(WRONG_CODES_PER_MIN);
    expect(lookups).toBeLessThanOrEqual(WRONG_CODES_PER_MIN);

    const pairing = await makePairing(onRedis.url, await tokens.sign({ sub: 'burst-1', role: 'device' }));
    expect((await claim(onRedis.url, pairing.code, 'Phone', from)).status).toBe(429);
    // The code was not looked at, so it still works from another address.
    expect((await claim(onRedis.url, pairing.code, 'Phone', '127.0.0.32')).status).toBe(200);
  });

  it('a right code does not spend the budget: 12 pairings from one address all succeed', async () => {
    const from = '127.0.0.33';
    const device = await tokens.sign({ sub: 'burst-2', role: 'device' });
    for (let n = 0; n < WRONG_CODES_PER_MIN + 2; n += 1) {
      const pairing = await makePairing(onRedis.url, device);
      expect((await claim(onRedis.url, pairing.code, `Phone ${n}`, from)).status, `pairing ${n + 1}`).toBe(
        200,
      );
    }
    expect((await claim(onRedis.url, WRONG, 'Phone', from)).status).toBe(400);
  });

  it(`embedded: ${BURST} concurrent wrong codes answer at most ${WRONG_CODES_PER_MIN} with 400, then a right code is 429`, async () => {
    const from = '127.0.0.34';
    const statuses = await burst(embedded.url, from);
    expect(Object.keys(statuses).sort()).toEqual(['400', '429']);
    expect(statuses[400]).toBeLessThanOrEqual(WRONG_CODES_PER_MIN);
    const pairing = await makePairing(embedded.url, await tokens.sign({ sub: 'burst-3', role: 'device' }));
    expect((await claim(embedded.url, pairing.code, 'Phone', from)).status).toBe(429);
  });
});
