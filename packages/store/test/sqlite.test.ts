import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStateDatabase, SqliteInquiryStore } from '../src/index.js';
import { WalSync } from '../src/sqlite/wal-sync.js';
import { answered, runStoreContract, sampleInquiry } from '../src/testing/index.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-sqlite-'));
  dirs.push(dir);
  return dir;
}

runStoreContract('sqlite', async (options) => {
  let offset = 0;
  const dir = tempDir();
  const store = new SqliteInquiryStore({
    path: join(dir, 'hitl.db'),
    ...options,
    now: () => Date.now() + offset,
  });
  return {
    store,
    advanceClock: (ms) => {
      offset += ms;
    },
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SqliteInquiryStore', () => {
  it('finds pending and resolved inquiries and idempotency keys again after reopening the file', async () => {
    const path = join(tempDir(), 'hitl.db');
    const first = new SqliteInquiryStore({ path });
    const pending = sampleInquiry({ idempotencyKey: 'still-open' });
    const ended = sampleInquiry({ idempotencyKey: 'done', suggestedAnswer: 'L' });
    await first.create(pending);
    await first.create(ended);
    await first.resolve(ended.inquiryId, answered('M'));
    await first.close();

    const second = new SqliteInquiryStore({ path });
    try {
      expect(await second.get(pending.inquiryId)).toEqual({ ...pending, status: 'pending' });
      expect(await second.getByKey('user-a', 'done')).toMatchObject({ status: 'answered', answer: 'M' });
      const again = await second.create(sampleInquiry({ idempotencyKey: 'still-open' }));
      expect(again).toMatchObject({ kind: 'ok', created: false, inquiry: { inquiryId: pending.inquiryId } });
      expect(await second.countPending('user-a')).toBe(1);
      expect(await second.resolve(pending.inquiryId, answered('S'))).toMatchObject({ kind: 'won' });
      expect(await second.resolve(ended.inquiryId, answered('S'))).toMatchObject({
        kind: 'lost',
        inquiry: { answer: 'M' },
      });
    } finally {
      await second.close();
    }
  });

  it('brings a version-1 file forward: its inquiries are listed for their users and stay answerable', async () => {
    const path = join(tempDir(), 'hitl.db');
    const old = sampleInquiry({ question: 'written by a version-1 build' });
    const first = new SqliteInquiryStore({ path });
    await first.create(old);
    await first.close();
    // What a version-1 build left behind: the inquiries table alone, at version 1.
    const raw = openStateDatabase(path);
    raw.db.exec(
      `DROP TABLE inquiry_audience; DROP TABLE inquiry_escalations; DROP TABLE inquiry_pending_users; UPDATE schema_versions SET version = 1 WHERE component = 'inquiries'`,
    );
    raw.close();

    const second = new SqliteInquiryStore({ path });
    try {
      const page = await second.list({ userId: 'user-a', status: 'pending', limit: 10 });
      expect(page.items.map((i) => i.inquiryId)).toEqual([old.inquiryId]);
      expect(await second.countPending('user-a')).toBe(1);
      const team = sampleInquiry({ userId: 'asker', audience: ['user-a', 'user-b'] });
      await second.create(team);
      const listed = await second.list({ userId: 'user-b', status: 'all', limit: 10 });
      expect(listed.items.map((i) => i.inquiryId)).toEqual([team.inquiryId]);
      expect(await second.resolve(old.inquiryId, answered('S'))).toMatchObject({ kind: 'won' });
    } finally {
      await second.close();
    }
    const third = openStateDatabase(path);
    try {
      const row = third.db.prepare("SELECT version FROM schema_versions WHERE component = 'inquiries'").get();
      expect(row).toMatchObject({ version: 4 });
    } finally {
      third.close();
    }
  });

  it('brings a version-3 file forward: its pending inquiries count against their askers and members', async () => {
    const path = join(tempDir(), 'hitl.db');
    const first = new SqliteInquiryStore({ path });
    const own = sampleInquiry({ userId: 'asker' });
    const team = sampleInquiry({ userId: 'asker', audience: ['m1', 'm2'] });
    const ended = sampleInquiry({ userId: 'm1' });
    for (const inquiry of [own, team, ended]) await first.create(inquiry);
    await first.resolve(ended.inquiryId, answered('M'));
    await first.close();
    // What a version-3 build left behind: no table of the users a pending inquiry counts against.
    const raw = openStateDatabase(path);
    raw.db.exec(
      `DROP TABLE inquiry_pending_users; UPDATE schema_versions SET version = 3 WHERE component = 'inquiries'`,
    );
    raw.close();

    const second = new SqliteInquiryStore({ path });
    try {
      expect(await second.countPending('asker')).toBe(2);
      expect(await second.countPending('m1')).toBe(1);
      expect(await second.countPending('m2')).toBe(1);
      const over = await second.create(sampleInquiry({ userId: 'm2' }), { maxPendingPerUser: 1 });
      expect(over).toMatchObject({ kind: 'limit', pending: 1 });
      await second.resolve(team.inquiryId, answered('S'));
      expect(await second.countPending('asker')).toBe(1);
      expect(await second.countPending('m2')).toBe(0);
    } finally {
      await second.close();
    }
  });

  it('syncs the WAL once per turn of the event loop, for every answer asked in that turn', async () => {
    const path = join(tempDir(), 'hitl.db');
    const state = openStateDatabase(path);
    try {
      state.db.exec('CREATE TABLE t (x INTEGER)');
      const wal = new WalSync(`${path}-wal`);
      let synced = 0;
      const together = Array.from({ length: 10 }, () => wal.sync().then(() => synced++));
      // Nothing is flushed while the turn that asked is still running.
      expect(wal.flushes).toBe(0);
      await Promise.all(together);
      expect(synced).toBe(10);
      expect(wal.flushes).toBe(1);
      await wal.sync();
      expect(wal.flushes).toBe(2);
      // Closing flushes what is still asked for.
      const last = wal.sync();
      wal.close();
      expect(wal.flushes).toBe(3);
      await last;
    } finally {
      state.close();
    }
  });

  it('moves the flushes to the thread pool once they are slow, one at a time, each shared by what waited', async () => {
    const path = join(tempDir(), 'hitl.db');
    const state = openStateDatabase(path);
    try {
      state.db.exec('CREATE TABLE t (x INTEGER)');
      // Any flush counts as slow: the first runs here, and its time sends the next ones to the pool.
      const wal = new WalSync(`${path}-wal`, { inlineBelowMs: 1e-9 });
      expect(wal.onPool).toBe(false);
      await wal.sync();
      expect(wal.onPool).toBe(true);
      const first = Array.from({ length: 5 }, () => wal.sync());
      await new Promise((resolve) => setImmediate(resolve));
      // The pool flush is running: these wait for the next one, which starts when it ends.
      const second = Array.from({ length: 5 }, () => wal.sync());
      expect(wal.flushes).toBe(2);
      await Promise.all(first);
      await Promise.all(second);
      expect(wal.flushes).toBe(3);
      // Closed while a pool flush runs: what was asked is flushed here, and the handle closes after.
      const running = wal.sync();
      await new Promise((resolve) => setImmediate(resolve));
      const last = wal.sync();
      wal.close();
      await Promise.all([running, last]);
      expect(wal.flushes).toBe(5);
      await expect(wal.sync()).rejects.toThrow(/after close/);
    } finally {
      state.close();
    }
  });

  it('fails a sync, and every sync of its turn, when the WAL cannot be flushed', async () => {
    const wal = new WalSync(join(tempDir(), 'never-written.db-wal'));
    const both = [wal.sync(), wal.sync()];
    for (const sync of both) await expect(sync).rejects.toThrow(/ENOENT/);
    wal.close();
  });

  it('refuses a second open of the same file while the first holds it, naming the holder', async () => {
    const path = join(tempDir(), 'hitl.db');
    const first = new SqliteInquiryStore({ path });
    expect(() => new SqliteInquiryStore({ path })).toThrow(
      new RegExp(`in use by process ${process.pid}: only one hitl node may run on a state directory`),
    );
    await first.close();
    const reopened = new SqliteInquiryStore({ path });
    await reopened.close();
  });

  it('gives the pages of expired rows back to the disk (retention keeps the file bounded)', async () => {
    const path = join(tempDir(), 'hitl.db');
    let offset = 0;
    const database = openStateDatabase(path);
    // A frozen clock: on a slow machine the loop below may take seconds, and nothing may expire during it.
    const base = Date.now();
    const store = new SqliteInquiryStore({ database, retentionMs: 1000, now: () => base + offset });
    const pages = () =>
      Number((database.db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count);
    try {
      const empty = pages();
      const context = { notes: 'x'.repeat(2000) };
      for (let i = 0; i < 300; i++) {
        const inquiry = sampleInquiry({ context, idempotencyKey: `k${i}` });
        await store.create(inquiry);
        await store.resolve(inquiry.inquiryId, answered('M'));
      }
      const full = pages();
      expect(full).toBeGreaterThan(empty + 100);
      offset += 60_000 + 1000; // past the retention and the sweep interval
      await store.create(sampleInquiry()); // a write runs the sweep
      expect(await store.getByKey('user-a', 'k0')).toBeNull();
      expect(pages()).toBeLessThan(empty + 20);
    } finally {
      await store.close();
      database.close();
    }
  });

  it('creates over an expired row the sweep has not deleted yet, and re-attaches to a live one', async () => {
    // Sweeps run every `retentionMs` of store time (here 1 s); the clock is driven by hand so that
    // the ended row has expired while no sweep is due: the create meets its key in the table.
    let clock = Date.now();
    const retentionMs = 1000;
    const store = new SqliteInquiryStore({ path: join(tempDir(), 'hitl.db'), retentionMs, now: () => clock });
    try {
      const start = clock;
      await store.create(sampleInquiry()); // sweeps now; the next sweep is due at start + 1000
      clock = start + retentionMs - 1;
      const old = sampleInquiry({ idempotencyKey: 'k' });
      await store.create(old);
      await store.resolve(old.inquiryId, answered('M')); // expires at start + 1999
      clock = start + retentionMs;
      await store.create(sampleInquiry()); // sweeps: the ended row is still live
      expect(await store.getByKey('user-a', 'k')).toMatchObject({ inquiryId: old.inquiryId });
      clock = start + 2 * retentionMs - 1; // expired, and the next sweep is due a millisecond later
      expect(await store.getByKey('user-a', 'k')).toBeNull();
      const again = sampleInquiry({ idempotencyKey: 'k' });
      expect(await store.create(again)).toMatchObject({ kind: 'ok', created: true });
      expect(await store.getByKey('user-a', 'k')).toMatchObject({
        inquiryId: again.inquiryId,
        status: 'pending',
      });
      expect(await store.get(old.inquiryId)).toBeNull();
      const retry = await store.create(sampleInquiry({ idempotencyKey: 'k' }));
      expect(retry).toMatchObject({ kind: 'ok', created: false, inquiry: { inquiryId: again.inquiryId } });
      expect(await store.countPending('user-a')).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('returns copies, so a caller mutating a result cannot change the store', async () => {
    const store = new SqliteInquiryStore({ path: join(tempDir(), 'hitl.db') });
    try {
      const input = sampleInquiry();
      const created = await store.create(input);
      if (created.kind !== 'ok') throw new Error('not created');
      created.inquiry.status = 'answered';
      input.question = 'changed';
      expect(await store.get(input.inquiryId)).toMatchObject({ status: 'pending', question: 'Which size?' });
    } finally {
      await store.close();
    }
  });
});

process.on('exit', () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
