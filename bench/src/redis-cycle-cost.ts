/**
 * `node bench/dist/redis-cycle-cost.js [--n 2000] [--batch 8]`
 *
 * Redis's own time per inquiry cycle, from the store's side alone: the steps a node takes on one
 * Redis for a device's answer (create; the answer's resolve with the asker known, addressed to the
 * user, with its audit record; the record appended to the chain), `batch` cycles at a time (as the
 * node's queue batches audit appends under load), on a fresh redis-server with nothing else on it.
 * Prints one `BENCH redis-cycle-cost` line: `INFO commandstats` µs per cycle (summed over every
 * command, a script's inner calls counted under the script and again under their names; and the
 * scripts' share), Redis's process CPU per cycle (`INFO cpu`), commands run per cycle, and the slow
 * log's µs / calls per cycle by script. No load generator shares the Redis: run it from two builds
 * in turn for an A/B (docs/BENCHMARKS.md).
 */
import { newInquiryId, RedisAuditChain, RedisInquiryStore } from '@hitl/store';
import { sampleInquiry, startRedisServer } from '@hitl/store/testing';
import { Redis } from 'ioredis';
import { formatLine } from './core/summary.js';
import { SlowlogWindow, usecPerUnit } from './env/redis-slowlog.js';
import { commandStats, SCRIPT_COMMANDS, total } from './env/redis-stats.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  Number(args[args.indexOf(name) + 1] || fallback) || fallback;
const n = option('--n', 2000);
const batch = option('--batch', 8);

async function cycle(store: RedisInquiryStore, chain: RedisAuditChain, i: number): Promise<boolean> {
  const userId = `bench-${i % 50}`;
  const created = await store.create(sampleInquiry({ inquiryId: newInquiryId(), userId }));
  if (created.kind !== 'ok') return false;
  const { inquiry } = created;
  const resolvedAt = Date.now();
  const resolution = {
    status: 'answered' as const,
    answer: 'M',
    resolvedBy: { kind: 'human' as const, userId, deviceId: 'd1' },
    resolvedAt,
  };
  const record = {
    id: `inquiry:${inquiry.inquiryId}:end`,
    type: 'answer',
    at: resolvedAt,
    inquiryId: inquiry.inquiryId,
    by: resolution.resolvedBy,
    answer: 'M',
  };
  const result = await store.resolve(inquiry.inquiryId, resolution, inquiry, userId, { record });
  if (result.kind !== 'won') return false;
  return (await chain.append([record])).length === 1;
}

async function run(store: RedisInquiryStore, chain: RedisAuditChain, from: number, count: number) {
  let ok = 0;
  for (let i = from; i < from + count; i += batch) {
    const done = await Promise.all(
      Array.from({ length: Math.min(batch, from + count - i) }, (_, k) => cycle(store, chain, i + k)),
    );
    ok += done.filter(Boolean).length;
  }
  return ok;
}

const server = await startRedisServer();
const redis = new Redis(server.url);
const store = new RedisInquiryStore({ redis, prefix: 'bench:' });
const chain = new RedisAuditChain({ redis, prefix: 'bench:' });
try {
  // Warm-up: script loads, JIT.
  await run(store, chain, 0, 200);
  const before = await commandStats(server.url);
  const ok = await run(store, chain, 200, n);
  const after = await commandStats(server.url);
  // The breakdown in a second window (the slow log costs Redis a little per command).
  const slowlog = await SlowlogWindow.open(server.url);
  await run(store, chain, 200 + n, Math.min(n, 1000));
  const breakdown = usecPerUnit(await slowlog.close(), Math.min(n, 1000));
  const usec = (stats: typeof before) => total(stats.usec);
  const scripts = (stats: typeof before) =>
    [...SCRIPT_COMMANDS].reduce((sum, name) => sum + (stats.usec[name] ?? 0), 0);
  process.stdout.write(
    `${formatLine({
      scenario: 'redis-cycle-cost',
      fields: {
        cycles: n,
        batch,
        usec_per_cycle: (usec(after) - usec(before)) / n,
        script_usec_per_cycle: (scripts(after) - scripts(before)) / n,
        cpu_usec_per_cycle: (after.cpuUsec - before.cpuUsec) / n,
        cmds_per_cycle: (total(after.calls) - total(before.calls)) / n,
        top_usec: breakdown,
        ok: ok === n,
      },
    })}\n`,
  );
} finally {
  await store.close();
  await redis.quit();
  await server.stop();
}
