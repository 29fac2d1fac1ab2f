import type { Inquiry } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import type { InquiryStore, ListOptions } from '../store.js';
import { answered, createNew, type MakeStore, peerOf, timedOut } from './fixtures.js';

/** Listing, counting and due deadlines. */
export function listContract(open: MakeStore): void {
  describe('list', () => {
    it('pages newest first, per user, with a cursor that ends in null', async () => {
      const { store } = await open();
      const mine: Inquiry[] = [];
      for (let i = 0; i < 5; i++) mine.push(await createNew(store, { question: `mine ${i}` }));
      const theirs = [
        await createNew(store, { userId: 'user-b' }),
        await createNew(store, { userId: 'user-b' }),
      ];
      await store.resolve(mine[1]!.inquiryId, answered('M'));
      const newestFirst = (items: Inquiry[]) => items.map((i) => i.inquiryId).reverse();

      const pending = await readAll(store, { userId: 'user-a', status: 'pending', limit: 2 });
      expect(pending.pages).toEqual([2, 2]);
      expect(pending.ids).toEqual(newestFirst([mine[0]!, mine[2]!, mine[3]!, mine[4]!]));

      const all = await readAll(store, { userId: 'user-a', status: 'all', limit: 2 });
      expect(all.pages).toEqual([2, 2, 1]);
      expect(all.ids).toEqual(newestFirst(mine));

      const exact = await store.list({ userId: 'user-a', status: 'all', limit: 5 });
      expect(exact.items).toHaveLength(5);
      expect(exact.nextCursor).toBeNull();
      expect(exact.items[3]).toMatchObject({
        inquiryId: mine[1]!.inquiryId,
        status: 'answered',
        answer: 'M',
      });

      const other = await readAll(store, { userId: 'user-b', status: 'all', limit: 10 });
      expect(other.ids).toEqual(newestFirst(theirs));
      expect((await store.list({ userId: 'user-c', status: 'all', limit: 10 })).items).toEqual([]);
    });

    it('lists an inquiry for each audience member (not for an asker outside it), pending then all', async () => {
      const fixture = await open();
      const { store } = fixture;
      const reader = await peerOf(fixture);
      const team = await createNew(store, { userId: 'asker', audience: ['m1', 'm2', 'm3'] });
      const withAsker = await createNew(store, { userId: 'm1', audience: ['m1', 'm2'] });
      const own = await createNew(store, { userId: 'm2' });
      const ids = async (userId: string, status: 'pending' | 'all') =>
        (await readAll(reader, { userId, status, limit: 1 })).ids;
      expect(await ids('m1', 'pending')).toEqual([withAsker.inquiryId, team.inquiryId]);
      expect(await ids('m2', 'pending')).toEqual([own.inquiryId, withAsker.inquiryId, team.inquiryId]);
      expect(await ids('m3', 'pending')).toEqual([team.inquiryId]);
      expect(await ids('asker', 'all')).toEqual([]);
      expect(await ids('outsider', 'all')).toEqual([]);
      await store.resolve(team.inquiryId, answered('M'));
      expect(await ids('m3', 'pending')).toEqual([]);
      expect(await ids('m3', 'all')).toEqual([team.inquiryId]);
      const [listed] = (await reader.list({ userId: 'm3', status: 'all', limit: 5 })).items;
      expect(listed).toMatchObject({ audience: ['m1', 'm2', 'm3'], status: 'answered', answer: 'M' });
      expect(await ids('asker', 'all')).toEqual([]);
      expect((await readAll(reader, { status: 'all', limit: 10 })).ids).toHaveLength(3);
    });

    it('shows ops (no user) every user, pending or all', async () => {
      const { store } = await open();
      const a = await createNew(store, { userId: 'user-a' });
      const b = await createNew(store, { userId: 'user-b' });
      const c = await createNew(store, { userId: 'user-c' });
      await store.resolve(b.inquiryId, timedOut());
      const all = await readAll(store, { status: 'all', limit: 2 });
      expect(all.ids).toEqual([c.inquiryId, b.inquiryId, a.inquiryId]);
      const pending = await readAll(store, { status: 'pending', limit: 1 });
      expect(pending.ids).toEqual([c.inquiryId, a.inquiryId]);
      expect(pending.pages).toEqual([1, 1]);
    });
  });

  describe('countPending', () => {
    it('counts only the user’s pending inquiries', async () => {
      const { store } = await open();
      expect(await store.countPending('user-a')).toBe(0);
      const first = await createNew(store);
      await createNew(store);
      await createNew(store, { userId: 'user-b' });
      expect(await store.countPending('user-a')).toBe(2);
      await store.resolve(first.inquiryId, answered('M'));
      expect(await store.countPending('user-a')).toBe(1);
      expect(await store.countPending('user-b')).toBe(1);
    });

    it('counts what the user asked and what is addressed to the user', async () => {
      const { store } = await open();
      const team = await createNew(store, { userId: 'asker', audience: ['m1', 'm2'] });
      await createNew(store, { userId: 'm1' });
      expect(await store.countPending('asker')).toBe(1);
      expect(await store.countPending('m1')).toBe(2);
      expect(await store.countPending('m2')).toBe(1);
      await store.resolve(team.inquiryId, answered('M'));
      expect(await store.countPending('asker')).toBe(0);
      expect(await store.countPending('m1')).toBe(1);
      expect(await store.countPending('m2')).toBe(0);
    });
  });

  describe('listDue', () => {
    it('lists pending inquiries past their service deadline, earliest first', async () => {
      const { store } = await open();
      const now = Date.now();
      const due = (ago: number) => serviceDueAgo(now, ago);
      const older = await createNew(store, { deadlines: due(3000) });
      const newer = await createNew(store, { deadlines: due(1000) });
      const ended = await createNew(store, { deadlines: due(2000) });
      await createNew(store, { deadlines: due(-60_000) }); // not due yet
      await store.resolve(ended.inquiryId, timedOut());
      expect(await store.listDue(now, 10)).toEqual([older.inquiryId, newer.inquiryId]);
      expect(await store.listDue(now, 1)).toEqual([older.inquiryId]);
      expect(await store.listDue(now - 2000, 10)).toEqual([older.inquiryId]);
      expect(await store.listDue(now + 120_000, 10)).toHaveLength(3);
    });

    it('finds an inquiry created already due after a sweep that found nothing', async () => {
      const { store } = await open();
      const now = Date.now();
      const deadlines = (ago: number) => serviceDueAgo(now, ago);
      await createNew(store, { deadlines: deadlines(-60_000) });
      expect(await store.listDue(now, 10)).toEqual([]);
      const late = await createNew(store, { deadlines: deadlines(1000) });
      expect(await store.listDue(now, 10)).toEqual([late.inquiryId]);
      expect(await store.listDue(now, 10)).toEqual([late.inquiryId]);
      await store.resolve(late.inquiryId, timedOut());
      expect(await store.listDue(now, 10)).toEqual([]);
    });
  });

  describe('ping', () => {
    it('answers within the timeout', async () => {
      const { store } = await open();
      await expect(store.ping(1000)).resolves.toBeUndefined();
    });
  });
}

/** Follows the cursor to the end; the page sizes and the ids in order. */
async function readAll(
  store: InquiryStore,
  options: ListOptions,
): Promise<{ pages: number[]; ids: string[] }> {
  const pages: number[] = [];
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 50; guard++) {
    const page = await store.list({ ...options, cursor });
    pages.push(page.items.length);
    ids.push(...page.items.map((i) => i.inquiryId));
    if (page.nextCursor === null) return { pages, ids };
    cursor = page.nextCursor;
  }
  throw new Error('cursor never ended');
}

/** Deadlines whose service deadline was `ago` ms before `now` (negative: still to come). */
function serviceDueAgo(now: number, ago: number) {
  return { deviceAt: now - ago - 1000, serviceAt: now - ago, clientAt: now + 60_000 };
}
