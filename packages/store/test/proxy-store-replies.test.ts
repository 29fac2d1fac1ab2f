import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisProxyStore, ScriptReplyError } from '../src/index.js';
import { startRedisServer, type TestRedisServer } from '../src/testing/index.js';

let server: TestRedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('the Redis proxy store reads script replies through readReply', () => {
  it('throws on a code its call does not expect instead of reading it as not_found', async () => {
    const client = new Redis(server.url);
    try {
      const store = new RedisProxyStore({ redis: client, prefix: `test:${randomUUID()}:proxy:` });
      const grantId = randomUUID();
      await store.createGrant({ grantId, userId: 'u', digest: 'd', expiresAt: Date.now() + 60_000 });
      // A foreign version of the script (a rolling upgrade gone wrong) answers a code this store never learnt.
      client.defineCommand('hitlProxyGrantDecide', { numberOfKeys: 1, lua: 'return {-9}' });
      client.defineCommand('hitlProxyGrantConsume', { numberOfKeys: 1, lua: 'return {-9}' });
      const decided = store.decideGrant(grantId, 'approved', Date.now());
      await expect(decided).rejects.toBeInstanceOf(ScriptReplyError);
      await expect(decided).rejects.toThrow(/grant-decide-1 answered an unknown code \(-9\)/);
      await expect(store.consumeGrant(grantId, 'd', Date.now())).rejects.toThrow(/grant-consume-1/);
      await store.close();
    } finally {
      client.disconnect();
    }
  });

  it('names a known code that is not expected at that call', async () => {
    const client = new Redis(server.url);
    try {
      const store = new RedisProxyStore({ redis: client, prefix: `test:${randomUUID()}:proxy:` });
      // -5 (Mismatch) is a consume answer; a decide that gets it is a bug, named as such.
      client.defineCommand('hitlProxyGrantDecide', { numberOfKeys: 1, lua: 'return {-5}' });
      await expect(store.decideGrant('g', 'approved', Date.now())).rejects.toThrow(
        /grant-decide-1 answered Mismatch \(-5\)/,
      );
      await store.close();
    } finally {
      client.disconnect();
    }
  });
});
