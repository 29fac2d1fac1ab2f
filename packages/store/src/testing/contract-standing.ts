import { afterEach, describe, expect, it } from 'vitest';
import type { NewStandingApproval, StandingStore } from '../standing/standing.js';

/** A store under test and how to clean up after it. */
export interface StandingFixture {
  store: StandingStore;
  cleanup(): Promise<void>;
}

export type MakeStanding = () => Promise<StandingFixture>;

/** Real Redis expires keys by the wall clock, so the suite's times are near the real now. */
const NOW = Date.now();
const MINUTE = 60_000;

const approval = (n: number, overrides: Partial<NewStandingApproval> = {}): NewStandingApproval => ({
  id: `sa_${n}`,
  userId: 'agent-user',
  server: 'files',
  tool: 'delete',
  until: NOW + 15 * MINUTE,
  createdBy: 'ann',
  createdAt: NOW,
  inquiryId: `inq_${n}`,
  ...overrides,
});

const call = (args: Record<string, unknown> = {}, overrides: Record<string, string> = {}) => ({
  userId: 'agent-user',
  server: 'files',
  tool: 'delete',
  arguments: args,
  ...overrides,
});

/**
 * The behaviour every `StandingStore` must show, as a vitest suite.
 * @example
 * runStandingContract('memory', async () => {
 *   const store = new MemoryStandingStore();
 *   return { store, cleanup: () => store.close() };
 * });
 */
export function runStandingContract(name: string, make: MakeStanding): void {
  describe(`StandingStore contract: ${name}`, () => {
    const opened: StandingFixture[] = [];
    const open = async () => {
      const fixture = await make();
      opened.push(fixture);
      return fixture.store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((f) => f.cleanup()));
    });

    it('covers only the same asker, server and tool, and counts each use', async () => {
      const store = await open();
      await store.create(approval(1));
      expect(await store.use(call({ path: '/a' }), NOW)).toMatchObject({ id: 'sa_1', uses: 1 });
      expect(await store.use(call({ path: '/b' }), NOW)).toMatchObject({ id: 'sa_1', uses: 2 });
      expect(await store.use(call({}, { userId: 'someone-else' }), NOW)).toBeNull();
      expect(await store.use(call({}, { server: 'other' }), NOW)).toBeNull();
      expect(await store.use(call({}, { tool: 'read' }), NOW)).toBeNull();
      expect(await store.get('sa_1', NOW)).toMatchObject({ uses: 2, createdBy: 'ann' });
    });

    it('matches the `match` values exactly, key order aside', async () => {
      const store = await open();
      await store.create(approval(2, { match: { path: '/srv/cache/tmp', opts: { a: 1, b: [2] } } }));
      expect(await store.use(call({ path: '/srv/cache/tmp' }), NOW)).toBeNull();
      expect(await store.use(call({ path: '/srv/cache', opts: { a: 1, b: [2] } }), NOW)).toBeNull();
      expect(await store.use(call({ path: '/srv/cache/tmp', opts: { b: [2], a: 1 } }), NOW)).toMatchObject({
        id: 'sa_2',
        uses: 1,
      });
    });

    it('stops at `until` and at an end, at once, and an end returns the uses', async () => {
      const store = await open();
      await store.create(approval(3, { until: NOW + MINUTE }));
      expect(await store.use(call(), NOW + MINUTE - 1)).toMatchObject({ uses: 1 });
      expect(await store.use(call(), NOW + MINUTE)).toBeNull();
      expect(await store.get('sa_3', NOW + MINUTE)).toBeNull();

      const later = NOW + MINUTE;
      await store.create(approval(4));
      expect(await store.use(call(), later)).toMatchObject({ id: 'sa_4' });
      expect(await store.end('sa_4', later)).toMatchObject({ id: 'sa_4', uses: 1 });
      expect(await store.use(call(), later)).toBeNull();
      expect(await store.end('sa_4', later)).toBeNull();
      expect(await store.end('sa_nothing', later)).toBeNull();
    });

    it('lists those covering or made by a user (ops: all), soonest to end first', async () => {
      const store = await open();
      await store.create(approval(5, { until: NOW + 5 * MINUTE }));
      await store.create(approval(6, { userId: 'bob-agent', createdBy: 'bob', until: NOW + 2 * MINUTE }));
      await store.create(approval(7, { userId: 'bob-agent', createdBy: 'ann', until: NOW + 3 * MINUTE }));
      await store.create(approval(8, { until: NOW - 1 }));
      const ids = async (filter: Parameters<StandingStore['list']>[0]) =>
        (await store.list(filter, NOW)).map((a) => a.id);
      expect(await ids({ userId: 'ann' })).toEqual(['sa_7', 'sa_5']);
      expect(await ids({ userId: 'agent-user' })).toEqual(['sa_5']);
      expect(await ids({ userId: 'bob' })).toEqual(['sa_6']);
      expect(await ids({ all: true })).toEqual(['sa_6', 'sa_7', 'sa_5']);
      expect(await store.countFor('bob-agent', NOW)).toBe(2);
    });

    it('counts concurrent uses exactly once each, and none after an end', async () => {
      const store = await open();
      await store.create(approval(9));
      const uses = await Promise.all(Array.from({ length: 20 }, () => store.use(call(), NOW)));
      expect(uses.map((u) => u?.uses).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      const [ended, after] = await Promise.all([store.end('sa_9', NOW), store.use(call(), NOW)]);
      expect(ended?.uses).toBeGreaterThanOrEqual(20);
      expect(await store.use(call(), NOW)).toBeNull();
      if (after) expect(ended?.uses).toBe(21);
    });
  });
}
