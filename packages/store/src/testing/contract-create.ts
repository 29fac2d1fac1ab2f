import { describe, expect, it } from 'vitest';
import type { CreateResult } from '../store.js';
import { answered, createNew, type MakeStore, peerOf, sampleInquiry, sleep } from './fixtures.js';

/** Creating, reading, idempotency, the pending cap, suggestions and retention. */
export function createContract(open: MakeStore): void {
  describe('create and read', () => {
    it('round-trips an inquiry through create, get and getByKey', async () => {
      const { store } = await open();
      const input = sampleInquiry({ idempotencyKey: 'order-42', suggestedAnswer: 'M' });
      const result = await store.create(input);
      expect(result).toEqual({ kind: 'ok', created: true, inquiry: { ...input, status: 'pending' } });
      expect(await store.get(input.inquiryId)).toEqual({ ...input, status: 'pending' });
      expect(await store.getByKey('user-a', 'order-42')).toEqual({ ...input, status: 'pending' });
      expect(await store.get('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeNull();
      expect(await store.getByKey('user-a', 'no-such-key')).toBeNull();
      expect(await store.getByKey('user-b', 'order-42')).toBeNull();
    });

    it('creates one inquiry for 50 concurrent creates with one idempotency key', async () => {
      const fixture = await open();
      const stores = [fixture.store, await peerOf(fixture)];
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          stores[i % 2]!.create(sampleInquiry({ idempotencyKey: 'retry-me', question: `attempt ${i}` })),
        ),
      );
      const oks = results.filter((r): r is Extract<CreateResult, { kind: 'ok' }> => r.kind === 'ok');
      expect(oks).toHaveLength(50);
      const ids = new Set(oks.map((r) => r.inquiry.inquiryId));
      expect(ids.size).toBe(1);
      expect(oks.filter((r) => r.created)).toHaveLength(1);
      const winner = oks.find((r) => r.created)!.inquiry;
      expect(oks.every((r) => r.inquiry.question === winner.question)).toBe(true);
      expect(await fixture.store.getByKey('user-a', 'retry-me')).toEqual(winner);
      expect(await fixture.store.countPending('user-a')).toBe(1);
    });

    it('keeps idempotency keys per user', async () => {
      const { store } = await open();
      const a = await store.create(sampleInquiry({ userId: 'user-a', idempotencyKey: 'same' }));
      const b = await store.create(sampleInquiry({ userId: 'user-b', idempotencyKey: 'same' }));
      expect(a.kind === 'ok' && a.created && b.kind === 'ok' && b.created).toBe(true);
      if (a.kind !== 'ok' || b.kind !== 'ok') return;
      expect(a.inquiry.inquiryId).not.toBe(b.inquiry.inquiryId);
      expect((await store.getByKey('user-b', 'same'))?.inquiryId).toBe(b.inquiry.inquiryId);
    });
  });

  describe('pending cap', () => {
    it('refuses past the cap, creating nothing, and frees a slot on resolve', async () => {
      const { store } = await open();
      const first = await createNew(store, { idempotencyKey: 'k1' });
      await createNew(store, { idempotencyKey: 'k2' });
      const over = await store.create(sampleInquiry({ idempotencyKey: 'k3' }), { maxPendingPerUser: 2 });
      expect(over).toEqual({ kind: 'limit', pending: 2 });
      expect(await store.getByKey('user-a', 'k3')).toBeNull();
      expect(await store.countPending('user-a')).toBe(2);
      // Re-attaching to an existing inquiry is not a new one: allowed at the cap.
      const again = await store.create(sampleInquiry({ idempotencyKey: 'k1' }), { maxPendingPerUser: 2 });
      expect(again).toMatchObject({ kind: 'ok', created: false, inquiry: { inquiryId: first.inquiryId } });
      // Another user is not affected; 0 means no cap.
      await createNew(store, { userId: 'user-b' });
      expect((await store.create(sampleInquiry(), { maxPendingPerUser: 0 })).kind).toBe('ok');
      await store.resolve(first.inquiryId, answered('M'));
      expect(await store.countPending('user-a')).toBe(2);
      expect((await store.create(sampleInquiry(), { maxPendingPerUser: 3 })).kind).toBe('ok');
    });

    it('holds the cap under 20 concurrent creates', async () => {
      const fixture = await open();
      const stores = [fixture.store, await peerOf(fixture)];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          stores[i % 2]!.create(sampleInquiry(), { maxPendingPerUser: 3 }),
        ),
      );
      expect(results.filter((r) => r.kind === 'ok')).toHaveLength(3);
      expect(results.filter((r) => r.kind === 'limit')).toHaveLength(17);
      expect(await fixture.store.countPending('user-a')).toBe(3);
    });
  });

  describe('suggest', () => {
    it('attaches a suggestion only while pending', async () => {
      const { store } = await open();
      const inquiry = await createNew(store);
      expect(await store.suggest(inquiry.inquiryId, 'L')).toBe(true);
      expect((await store.get(inquiry.inquiryId))?.suggestedAnswer).toBe('L');
      expect(await store.suggest(inquiry.inquiryId, { size: 'M' })).toBe(true);
      expect((await store.get(inquiry.inquiryId))?.suggestedAnswer).toEqual({ size: 'M' });
      await store.resolve(inquiry.inquiryId, answered('S'));
      expect(await store.suggest(inquiry.inquiryId, 'L')).toBe(false);
      expect(await store.get(inquiry.inquiryId)).toMatchObject({
        status: 'answered',
        suggestedAnswer: { size: 'M' },
      });
      expect(await store.suggest('01ARZ3NDEKTSV4RRFFQ69G5FAV', 'L')).toBe(false);
    });
  });

  describe('retention', () => {
    const retentionMs = 400;

    it('drops an ended inquiry after the retention, and frees its idempotency key', async () => {
      const fixture = await open({ retentionMs });
      const { store } = fixture;
      const ended = await createNew(store, { idempotencyKey: 'old' });
      const kept = await createNew(store);
      await store.resolve(ended.inquiryId, answered('M'));
      expect(await store.get(ended.inquiryId)).not.toBeNull();
      await pass(fixture, retentionMs + 300);
      expect(await store.get(ended.inquiryId)).toBeNull();
      expect(await store.getByKey('user-a', 'old')).toBeNull();
      expect(await store.get(kept.inquiryId)).toMatchObject({ status: 'pending' });
      const page = await store.list({ userId: 'user-a', status: 'all', limit: 10 });
      expect(page.items.map((i) => i.inquiryId)).toEqual([kept.inquiryId]);
      const fresh = await store.create(sampleInquiry({ idempotencyKey: 'old' }));
      expect(fresh).toMatchObject({ kind: 'ok', created: true });
    });

    it('drops a pending inquiry its service deadline plus the retention after', async () => {
      const fixture = await open({ retentionMs });
      const now = Date.now();
      const deadlines = { deviceAt: now - 2000, serviceAt: now - 1000, clientAt: now + 1000 };
      const stale = await createNew(fixture.store, { deadlines });
      expect(await fixture.store.get(stale.inquiryId)).not.toBeNull();
      await pass(fixture, retentionMs + 300);
      expect(await fixture.store.get(stale.inquiryId)).toBeNull();
      expect(await fixture.store.countPending('user-a')).toBe(0);
      expect(await fixture.store.listDue(Date.now(), 10)).toEqual([]);
    });

    it('keeps a pending inquiry with a week-long answer window until its service deadline plus the retention', async () => {
      const fixture = await open({ retentionMs });
      const { store } = fixture;
      const now = Date.now();
      const week = 7 * 24 * 60 * 60_000;
      const deadlines = { deviceAt: now + week, serviceAt: now + week, clientAt: now + week + 60_000 };
      const long = await createNew(store, { deadlines, idempotencyKey: 'week' });
      const stillPending = async () => {
        expect(await store.get(long.inquiryId)).toMatchObject({ status: 'pending' });
        expect(await store.getByKey('user-a', 'week')).toMatchObject({ inquiryId: long.inquiryId });
        const page = await store.list({ userId: 'user-a', status: 'pending', limit: 10 });
        expect(page.items.map((i) => i.inquiryId)).toEqual([long.inquiryId]);
        expect(await store.countPending('user-a')).toBe(1);
      };
      // Past creation + retention: a store that counted retention from the creation has dropped it.
      await pass(fixture, retentionMs + 300);
      await stillPending();
      if (!fixture.advanceClock) return; // real time only: the store's TTL test checks the rest
      fixture.advanceClock(week - 60_000); // a minute before its service deadline
      await stillPending();
      expect(await store.listDue(now + week - 30_000, 10)).toEqual([]);
      fixture.advanceClock(60_000 + retentionMs + 300); // past the service deadline plus the retention
      expect(await store.get(long.inquiryId)).toBeNull();
      expect(await store.getByKey('user-a', 'week')).toBeNull();
      expect(await store.countPending('user-a')).toBe(0);
    });
  });
}

/** Lets `ms` pass on the store's clock: moved when it is fake, waited for when it is real. */
async function pass(fixture: { advanceClock?: (ms: number) => void }, ms: number): Promise<void> {
  if (fixture.advanceClock) fixture.advanceClock(ms);
  else await sleep(ms); // time itself is under test: retention and TTLs on a real clock
}
