import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  RedisDeviceDeliveryLog,
  RedisInquiryStore,
  RedisSessionStore,
  RedisStandingStore,
  RedisTaskStore,
} from '../src/index.js';
import {
  runSessionContract,
  runStandingContract,
  runStoreContract,
  runTaskContract,
  sampleInquiry,
  startRedisCluster,
  type TestRedisCluster,
} from '../src/testing/index.js';
import { listedWaiters } from './redis-helpers.js';

// The same contract on a 3-master Redis Cluster: hash tags must keep each script's keys in one slot.
let cluster: TestRedisCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

runStoreContract('redis cluster', async (options) => {
  const prefix = `test:${randomUUID()}:`;
  const clients: Cluster[] = [];
  const stores: RedisInquiryStore[] = [];
  const open = () => {
    const redis = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 2 } });
    clients.push(redis);
    const store = new RedisInquiryStore({ redis, prefix, ...options });
    stores.push(store);
    return store;
  };
  return {
    store: open(),
    peer: async () => open(),
    listedWaiters: (inquiryId) => listedWaiters(clients[0]!, prefix, inquiryId),
    cleanup: async () => {
      await Promise.all(stores.map((store) => store.close()));
      await Promise.all(clients.map((client) => client.quit()));
    },
  };
});

/** Two stores on their own Cluster clients (two nodes), under one fresh prefix. */
function clusterPair<S extends { close(): Promise<void> }>(make: (redis: Cluster, prefix: string) => S) {
  const prefix = `test:${randomUUID()}:`;
  const clients = [0, 1].map(() => new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 2 } }));
  const [writer, reader] = clients.map((redis) => make(redis, prefix)) as [S, S];
  return Promise.resolve({
    writer,
    reader,
    cleanup: async () => {
      await Promise.all([writer.close(), reader.close()]);
      await Promise.all(clients.map((client) => client.quit()));
    },
  });
}

// A task's two keys share the user's hash tag: its MULTI and a listing's MGET stay in one slot.
runTaskContract('redis cluster', () => clusterPair((redis, prefix) => new RedisTaskStore({ redis, prefix })));

// A session's two keys share the user's hash tag: each of its MULTIs stays in one slot.
runSessionContract('redis cluster', () =>
  clusterPair((redis, prefix) => new RedisSessionStore({ redis, prefix })),
);

// A use is one read of the asker's hash and one script on it (one slot); the index has a slot of its own.
runStandingContract('redis cluster', async () => {
  const prefix = `test:${randomUUID()}:`;
  const redis = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 2 } });
  const store = new RedisStandingStore({ redis, prefix });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await redis.quit();
    },
  };
});

// Device deliveries live in each inquiry's hash, so a batch over inquiries in several slots is one
// script per inquiry on a Cluster.
it('records device deliveries of inquiries in different slots', async () => {
  const prefix = `test:${randomUUID()}:`;
  const redis = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 2 } });
  const store = new RedisInquiryStore({ redis, prefix });
  const log = new RedisDeviceDeliveryLog({ redis, prefix });
  try {
    const inquiries = [sampleInquiry(), sampleInquiry(), sampleInquiry()];
    for (const inquiry of inquiries) await store.create(inquiry);
    const entry = (inquiryId: string, n: number) => ({
      inquiryId,
      deviceName: `d${n}`,
      deviceId: `id-${n}`,
      socketId: `s-${n}`,
      via: 'socket' as const,
      event: 'new' as const,
      at: 1_000 + n,
    });
    await log.add([...inquiries.map((inquiry, n) => entry(inquiry.inquiryId, n)), entry('never-asked', 9)]);
    for (const [n, inquiry] of inquiries.entries()) {
      expect(await log.list(inquiry.inquiryId)).toEqual([entry(inquiry.inquiryId, n)]);
    }
    expect(await log.list('never-asked')).toEqual([]);
  } finally {
    await store.close();
    await redis.quit();
  }
});
