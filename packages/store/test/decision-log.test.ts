import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DecisionRecord } from '@hitl/protocol';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DecisionLog,
  MemoryDecisionLog,
  type NewDecisionRecord,
  openStateDatabase,
  RedisDecisionLog,
  SqliteDecisionLog,
  type StateDatabase,
} from '../src/index.js';
import { startRedisServer, type TestRedisServer } from '../src/testing/index.js';

let server: TestRedisServer;
let redis: Redis;
const stateDir = mkdtempSync(join(tmpdir(), 'hitl-audit-'));
const files: StateDatabase[] = [];
/** A fresh state file per log (each holds its own lock). */
function stateFile(name: string): StateDatabase {
  const file = openStateDatabase(join(stateDir, `${name}-${randomUUID()}.db`));
  files.push(file);
  return file;
}
beforeAll(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  for (const file of files) file.close();
  rmSync(stateDir, { recursive: true, force: true });
});

const base = Date.now() - 60_000;
function record(i: number, overrides: Partial<NewDecisionRecord> = {}): NewDecisionRecord {
  return {
    at: base + i * 1000,
    inquiryId: `inq-${i}`,
    userId: i % 2 === 0 ? 'alice' : 'bob',
    kind: 'question',
    question: `question ${i}`,
    outcome: 'answered',
    trigger: 'human',
    decidedBy: 'human',
    latencyMs: 0,
    elapsedMs: 100 * i,
    ...overrides,
  };
}

const makers: [string, () => DecisionLog][] = [
  ['memory', () => new MemoryDecisionLog({ max: 1000 })],
  ['redis', () => new RedisDecisionLog({ redis, prefix: `test:${randomUUID()}:`, max: 1000 })],
  ['sqlite', () => new SqliteDecisionLog({ db: stateFile('log').db, max: 1000 })],
];

describe.each(makers)('decision log (%s)', (_kind, make) => {
  let log: DecisionLog;
  let stored: DecisionRecord[];
  beforeAll(async () => {
    log = make();
    stored = [];
    for (let i = 0; i < 12; i++) {
      const overrides: Partial<NewDecisionRecord> =
        i % 3 === 0
          ? {
              outcome: 'timed_out',
              trigger: 'service-timer',
              decidedBy: 'decision-agent',
              strategy: 'random',
              output: 'M',
            }
          : i % 3 === 1
            ? { outcome: 'refused', trigger: 'refusal', decidedBy: 'human', strategy: 'preset_text' }
            : {};
      stored.push(await log.append(record(i, overrides)));
    }
  });
  const ids = (items: DecisionRecord[]) => items.map((r) => r.inquiryId);

  it('gives time-ordered ids and reads a record back by id', async () => {
    const [first, second] = stored;
    expect(first?.id).toMatch(/^\d+-\d+$/);
    expect(await log.get(second?.id ?? '')).toEqual(second);
    expect(await log.get('0-0')).toBeNull();
    expect(await log.get('not-an-id')).toBeNull();
  });

  it('lists newest first and pages with the cursor until nextCursor is null', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await log.list({ limit: 5, ...(cursor ? { cursor } : {}) });
      seen.push(...ids(page.items));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(stored.map((r) => r.inquiryId).reverse());
    expect(pages).toBe(3);
  });

  it('filters by strategy, outcome, user and time', async () => {
    expect(ids((await log.list({ limit: 50, strategy: 'random' })).items)).toEqual([
      'inq-9',
      'inq-6',
      'inq-3',
      'inq-0',
    ]);
    expect(ids((await log.list({ limit: 50, outcome: 'refused' })).items)).toEqual([
      'inq-10',
      'inq-7',
      'inq-4',
      'inq-1',
    ]);
    expect(ids((await log.list({ limit: 50, user: 'bob' })).items)).toEqual([
      'inq-11',
      'inq-9',
      'inq-7',
      'inq-5',
      'inq-3',
      'inq-1',
    ]);
    expect(ids((await log.list({ limit: 50, since: base + 9000 })).items)).toEqual([
      'inq-11',
      'inq-10',
      'inq-9',
    ]);
    const both = await log.list({ limit: 1, user: 'alice', outcome: 'answered' });
    expect(ids(both.items)).toEqual(['inq-8']);
    const rest = await log.list({
      limit: 50,
      user: 'alice',
      outcome: 'answered',
      cursor: both.nextCursor ?? '',
    });
    expect(ids(rest.items)).toEqual(['inq-2']);
    expect(rest.nextCursor).toBeNull();
  });

  it('reads everything since a time, newest first, up to a cap', async () => {
    expect(ids(await log.since(base + 10_000, 100))).toEqual(['inq-11', 'inq-10']);
    expect(await log.since(0, 5)).toHaveLength(5);
  });
});

describe('bounds', () => {
  it('the memory log keeps only the newest records', async () => {
    const log = new MemoryDecisionLog({ max: 3 });
    for (let i = 0; i < 5; i++) await log.append(record(i));
    expect((await log.list({ limit: 10 })).items.map((r) => r.inquiryId)).toEqual([
      'inq-4',
      'inq-3',
      'inq-2',
    ]);
  });

  it('the SQLite log keeps about the newest max records, and keeps them across a reopen', async () => {
    const path = join(stateDir, `bounds-${randomUUID()}.db`);
    let file = openStateDatabase(path);
    const log = new SqliteDecisionLog({ db: file.db, max: 100 });
    for (let i = 0; i < 400; i++) await log.append(record(i));
    file.close();
    file = openStateDatabase(path);
    try {
      const reopened = new SqliteDecisionLog({ db: file.db, max: 100 });
      const kept = await reopened.since(0, 1000);
      expect(kept.length).toBeGreaterThanOrEqual(100);
      expect(kept.length).toBeLessThanOrEqual(110);
      expect(kept[0]?.inquiryId).toBe('inq-399');
      const next = await reopened.append(record(400));
      expect(next.id > (kept[0]?.id ?? '')).toBe(true);
      expect((await reopened.list({ limit: 1 })).items[0]).toEqual(next);
    } finally {
      file.close();
    }
  });

  it('the Redis stream is trimmed near its cap', async () => {
    const prefix = `test:${randomUUID()}:`;
    const log = new RedisDecisionLog({ redis, prefix, max: 100 });
    for (let i = 0; i < 400; i++) await log.append(record(i));
    const length = await redis.xlen(`${prefix}decisions`);
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThan(400);
  });
});
