import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryAuditChain,
  MemoryInquiryStore,
  openStateDatabase,
  RedisAuditChain,
  RedisInquiryStore,
  SqliteAuditChain,
  SqliteInquiryStore,
  verifyChain,
} from '../src/index.js';
import {
  answered,
  auditRecord,
  runAuditContract,
  sampleInquiry,
  startRedisCluster,
  type TestRedisCluster,
} from '../src/testing/index.js';
import { deletePrefix, useRedisServer } from './redis-helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function statePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-audit-'));
  dirs.push(dir);
  return join(dir, 'hitl.db');
}

runAuditContract('memory', async () => {
  const chain = new MemoryAuditChain();
  const store = new MemoryInquiryStore({ outbox: chain });
  return { chain, store, cleanup: () => store.close() };
});

runAuditContract('sqlite', async () => {
  const database = openStateDatabase(statePath());
  const chain = new SqliteAuditChain(database);
  const store = new SqliteInquiryStore({ database, outbox: chain });
  return {
    chain,
    store,
    cleanup: async () => {
      await store.close();
      database.close();
    },
  };
});

const shared = useRedisServer();

/** Nodes on one Redis (or Cluster) under a fresh prefix: each its own client, store and chain. */
function redisNodes(connect: () => Redis | Cluster, cleanup: (prefix: string) => Promise<void>) {
  return async () => {
    const prefix = `test:${randomUUID()}:`;
    const clients: (Redis | Cluster)[] = [];
    const stores: RedisInquiryStore[] = [];
    const node = () => {
      const redis = connect();
      clients.push(redis);
      const store = new RedisInquiryStore({ redis, prefix });
      stores.push(store);
      return { store, chain: new RedisAuditChain({ redis, prefix }) };
    };
    return {
      ...node(),
      peer: async () => node(),
      cleanup: async () => {
        await Promise.all(stores.map((store) => store.close()));
        await cleanup(prefix);
        await Promise.all(clients.map((client) => client.quit()));
      },
    };
  };
}

runAuditContract(
  'redis',
  redisNodes(
    () => new Redis(shared.server.url, { maxRetriesPerRequest: 2 }),
    (prefix) => deletePrefix(shared.server.url, prefix),
  ),
);

// Every chain key under one hash tag: the compare-and-set stays one script on a Cluster.
let cluster: TestRedisCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

runAuditContract(
  'redis cluster',
  redisNodes(
    () => new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 2 } }),
    async () => undefined,
  ),
);

describe('SqliteAuditChain', () => {
  it('keeps the chain and the outbox across a reopen: what a killed node decided is appended at the next start', async () => {
    const path = statePath();
    const first = openStateDatabase(path);
    const chain = new SqliteAuditChain(first);
    const store = new SqliteInquiryStore({ database: first, outbox: chain });
    await chain.append([auditRecord(1)]);
    const inquiry = sampleInquiry();
    await store.create(inquiry);
    const record = { id: `inquiry:${inquiry.inquiryId}:end`, type: 'answer', at: Date.now() };
    await store.resolve(inquiry.inquiryId, answered('M'), undefined, undefined, { record });
    // No append: the process "dies" here.
    await store.close();
    first.close();
    const second = openStateDatabase(path);
    const reopened = new SqliteAuditChain(second);
    expect(await reopened.drainOutbox()).toBe(1);
    const all = await reopened.read(0, 100);
    expect(all.map((e) => e.record.id)).toEqual([expect.stringMatching(/^test:1:/), record.id]);
    expect(verifyChain(all)).toEqual({ ok: true, count: 2 });
    second.close();
  });

  it('a row edited in the file is caught, naming its seq', async () => {
    const database = openStateDatabase(statePath());
    const chain = new SqliteAuditChain(database);
    await chain.append([auditRecord(1), auditRecord(2, { answer: 'reject' }), auditRecord(3)]);
    database.db
      .prepare("UPDATE audit_chain SET record = json_set(record, '$.answer', 'approve') WHERE seq = 2")
      .run();
    expect(verifyChain(await chain.read(0, 100))).toMatchObject({ ok: false, seq: 2 });
    database.close();
  });
});
