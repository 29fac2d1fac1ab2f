/**
 * `node bench/dist/audit-cost.js [--n 2000] [--no-cluster]`
 *
 * What the audit chain adds to an answer, per store: the same resolve of a fresh inquiry with no
 * record, and with its record (written by the resolve's own step to the outbox, then appended to the
 * chain by compare-and-set, as the node does before it acknowledges the answer). One answer at a time,
 * the two kinds alternating, on the store classes the node uses (memory, SQLite in a temp file, one
 * redis-server, a 3-master Redis Cluster). Prints one `BENCH audit-cost` line per store: p50 / p99 of
 * both, in µs, and the extra time at p50.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuditChainStore,
  type InquiryStore,
  MemoryAuditChain,
  MemoryInquiryStore,
  newInquiryId,
  openStateDatabase,
  RedisAuditChain,
  RedisInquiryStore,
  SqliteAuditChain,
  SqliteInquiryStore,
} from '@hitl/store';
import { sampleInquiry, startRedisCluster, startRedisServer } from '@hitl/store/testing';
import { Cluster, Redis } from 'ioredis';
import { formatLine } from './core/summary.js';

const args = process.argv.slice(2);
const n = Number(args[args.indexOf('--n') + 1] || 2000) || 2000;
const withCluster = !args.includes('--no-cluster');
const log = (message: string) => process.stderr.write(`[audit-cost] ${message}\n`);

interface Parts {
  store: InquiryStore;
  chain: AuditChainStore;
  close(): Promise<void>;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const us = (ms: number) => Math.round(ms * 1000);

async function measure(name: string, parts: Parts): Promise<void> {
  const { store, chain } = parts;
  const plain: number[] = [];
  const audited: number[] = [];
  for (let i = 0; i < n + 100; i++) {
    const inquiry = sampleInquiry({ inquiryId: newInquiryId(), userId: `bench-${i % 50}` });
    await store.create(inquiry);
    const resolution = {
      status: 'answered' as const,
      answer: 'M',
      resolvedBy: { kind: 'human' as const, userId: inquiry.userId },
      resolvedAt: Date.now(),
    };
    const withRecord = i % 2 === 1;
    const started = performance.now();
    if (withRecord) {
      const record = {
        id: `inquiry:${inquiry.inquiryId}:end`,
        type: 'answer',
        at: resolution.resolvedAt,
        inquiryId: inquiry.inquiryId,
        by: resolution.resolvedBy,
        answer: 'M',
      };
      await store.resolve(inquiry.inquiryId, resolution, inquiry, undefined, { record });
      await chain.append([record]);
    } else {
      await store.resolve(inquiry.inquiryId, resolution, inquiry);
    }
    const took = performance.now() - started;
    // The first 100 warm up (script loads, JIT, page cache).
    if (i >= 100) (withRecord ? audited : plain).push(took);
  }
  plain.sort((a, b) => a - b);
  audited.sort((a, b) => a - b);
  const head = await chain.head();
  process.stdout.write(
    `${formatLine({
      scenario: 'audit-cost',
      fields: {
        ok: head.seq >= audited.length,
        store: name,
        answers: plain.length + audited.length,
        plainP50us: us(percentile(plain, 0.5)),
        plainP99us: us(percentile(plain, 0.99)),
        auditedP50us: us(percentile(audited, 0.5)),
        auditedP99us: us(percentile(audited, 0.99)),
        extraP50us: us(percentile(audited, 0.5) - percentile(plain, 0.5)),
        chainLength: head.seq,
      },
    })}\n`,
  );
}

async function main(): Promise<void> {
  log(`${n} answers per store, one at a time`);
  {
    const chain = new MemoryAuditChain();
    const store = new MemoryInquiryStore({ outbox: chain });
    await measure('memory', { store, chain, close: () => store.close() });
  }
  {
    const dir = mkdtempSync(join(tmpdir(), 'hitl-audit-cost-'));
    const database = openStateDatabase(join(dir, 'hitl.db'));
    const chain = new SqliteAuditChain(database);
    const store = new SqliteInquiryStore({ database, outbox: chain });
    await measure('sqlite', { store, chain, close: async () => store.close() });
    await store.close();
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
  {
    const server = await startRedisServer();
    const redis = new Redis(server.url);
    const store = new RedisInquiryStore({ redis, prefix: 'bench:' });
    await measure('redis', {
      store,
      chain: new RedisAuditChain({ redis, prefix: 'bench:' }),
      close: async () => undefined,
    });
    await store.close();
    await redis.quit();
    await server.stop();
  }
  if (withCluster) {
    log('starting a 3-master Redis Cluster');
    const cluster = await startRedisCluster();
    const redis = new Cluster(cluster.nodes);
    const store = new RedisInquiryStore({ redis, prefix: 'bench:' });
    await measure('redis-cluster', {
      store,
      chain: new RedisAuditChain({ redis, prefix: 'bench:' }),
      close: async () => undefined,
    });
    await store.close();
    await redis.quit();
    await cluster.stop();
  }
}

await main();
