import type { Inquiry } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import {
  answered,
  createNew,
  eventually,
  type MakeStore,
  peerOf,
  sleep,
  timedOut,
  waitersSetUp,
} from './fixtures.js';

/** First answer wins, and resolutions reach every node that waits on them, once. */
export function resolveContract(open: MakeStore): void {
  describe('resolve', () => {
    it('lets exactly one of 100 concurrent resolves win; the rest learn the winner', async () => {
      const fixture = await open();
      const stores = [fixture.store, await peerOf(fixture)];
      const inquiry = await createNew(fixture.store, { idempotencyKey: 'contested' });
      // Some callers name the asker (as the service does after reading the inquiry), some do not.
      const asker = { userId: 'user-a', idempotencyKey: 'contested' };
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          stores[i % 2]!.resolve(
            inquiry.inquiryId,
            answered(`answer ${i}`, `device-${i}`),
            i % 3 === 0 ? asker : undefined,
          ),
        ),
      );
      const won = results.filter((r) => r.kind === 'won');
      expect(won).toHaveLength(1);
      const winner = won[0]!.kind === 'won' ? won[0]!.inquiry : undefined;
      expect(winner).toMatchObject({ status: 'answered', inquiryId: inquiry.inquiryId });
      for (const result of results) {
        expect(result.kind === 'won' || result.kind === 'lost').toBe(true);
        if (result.kind !== 'not_found') expect(result.inquiry).toEqual(winner);
      }
      expect(await fixture.store.get(inquiry.inquiryId)).toEqual(winner);
      expect(await fixture.store.countPending('user-a')).toBe(0);
      expect(await fixture.store.getByKey('user-a', 'contested')).toEqual(winner);
      expect((await fixture.store.list({ status: 'pending', limit: 10 })).items).toEqual([]);
      expect(await fixture.store.listDue(Date.now() + 3_600_000, 10)).toEqual([]);
    });

    it('with addressedTo, resolves only what is addressed to that user (escalation included)', async () => {
      const fixture = await open();
      const { store } = fixture;
      const peer = await peerOf(fixture);
      // The asker's own question: addressed to the asker's user only.
      const own = await createNew(store);
      expect(await peer.resolve(own.inquiryId, answered('M'), undefined, 'user-b')).toEqual({
        kind: 'not_found',
      });
      expect(await store.get(own.inquiryId)).toMatchObject({ status: 'pending' });
      expect(await peer.resolve(own.inquiryId, answered('M'), { userId: 'user-a' }, 'user-a')).toMatchObject({
        kind: 'won',
        inquiry: { status: 'answered', answer: 'M' },
      });
      // Not addressed reads as not found even once it ended (as a read would: not yours to see).
      expect(await peer.resolve(own.inquiryId, answered('L'), undefined, 'user-b')).toEqual({
        kind: 'not_found',
      });
      expect(await peer.resolve(own.inquiryId, answered('L'), undefined, 'user-a')).toMatchObject({
        kind: 'lost',
        inquiry: { answer: 'M' },
      });
      // A team's question: its audience, not the asker; the escalation's users once it escalated.
      const team = await createNew(store, {
        idempotencyKey: 'team-q',
        audience: ['ann', 'bob'],
        escalation: { at: Date.now() - 1, users: ['zed'] },
      });
      for (const outsider of ['user-a', 'zed']) {
        expect(await peer.resolve(team.inquiryId, answered('S'), undefined, outsider)).toEqual({
          kind: 'not_found',
        });
      }
      expect(await store.escalate(team.inquiryId, Date.now())).not.toBeNull();
      // A guessed asker (wrong user, no key): the outcome and the clean-up are still the asker's.
      expect(await peer.resolve(team.inquiryId, answered('S'), { userId: 'zed' }, 'zed')).toMatchObject({
        kind: 'won',
        inquiry: { answer: 'S' },
      });
      await eventually(async () => (await store.countPending('user-a')) === 0);
      for (const member of ['ann', 'bob', 'zed']) {
        await eventually(async () => (await store.countPending(member)) === 0);
      }
      expect(await store.getByKey('user-a', 'team-q')).toMatchObject({ status: 'answered', answer: 'S' });
      expect((await store.list({ status: 'pending', limit: 10 })).items).toEqual([]);
    });

    it('answers not_found for an unknown inquiry', async () => {
      const { store } = await open();
      expect(await store.resolve('01ARZ3NDEKTSV4RRFFQ69G5FAV', answered('M'))).toEqual({ kind: 'not_found' });
    });

    it('never flips an ended inquiry', async () => {
      const { store } = await open();
      const inquiry = await createNew(store);
      const first = await store.resolve(inquiry.inquiryId, answered('M'));
      expect(first).toMatchObject({ kind: 'won', inquiry: { status: 'answered', answer: 'M' } });
      const second = await store.resolve(inquiry.inquiryId, timedOut());
      expect(second).toMatchObject({ kind: 'lost', inquiry: { status: 'answered', answer: 'M' } });
      expect(await store.get(inquiry.inquiryId)).toMatchObject({
        status: 'answered',
        answer: 'M',
        resolvedBy: { kind: 'human', deviceId: 'device-1' },
      });
    });

    it('fires onResolved once per resolution on every instance that waits on it or made it', async () => {
      const fixture = await open();
      const peer = await peerOf(fixture);
      const bystander = await peerOf(fixture);
      const heard = new Map<string, string[]>([
        ['store', []],
        ['peer', []],
        ['bystander', []],
      ]);
      const stopStore = fixture.store.onResolved((i) => heard.get('store')!.push(i.inquiryId));
      if (fixture.peer) {
        peer.onResolved((i) => heard.get('peer')!.push(i.inquiryId));
        bystander.onResolved((i) => heard.get('bystander')!.push(i.inquiryId));
      }
      const inquiries = await Promise.all(Array.from({ length: 5 }, () => createNew(fixture.store)));
      // Both wait on every inquiry (a waiter is what makes a node hear another node's resolution).
      const waits = [fixture.store, peer].flatMap((s) =>
        inquiries.map((i) => s.waitForResolution(i.inquiryId, { deadline: Date.now() + 10_000 })),
      );
      for (const inquiry of inquiries) await waitersSetUp(fixture, inquiry.inquiryId, 2);
      await Promise.all(
        inquiries.flatMap((inquiry) =>
          Array.from({ length: 4 }, (_, i) =>
            (i % 2 ? peer : fixture.store).resolve(inquiry.inquiryId, answered('x')),
          ),
        ),
      );
      const expected = inquiries.map((i) => i.inquiryId).sort();
      expect((await Promise.all(waits)).every((i) => i?.status === 'answered')).toBe(true);
      await eventually(
        () => heard.get('store')!.length >= 5 && (!fixture.peer || heard.get('peer')!.length >= 5),
      );
      // time itself is under test: nothing more may come for a while (a duplicate would show up here).
      await sleep(100);
      expect([...heard.get('store')!].sort()).toEqual(expected);
      if (fixture.peer) expect([...heard.get('peer')!].sort()).toEqual(expected);
      // An instance that neither waits on nor resolves an inquiry hears nothing of it.
      expect(heard.get('bystander')).toEqual([]);
      stopStore();
      const late = await createNew(fixture.store);
      await fixture.store.resolve(late.inquiryId, answered('y'));
      // time itself is under test: after unsubscribing nothing more may come for a while.
      await sleep(100);
      expect(heard.get('store')).toHaveLength(5);
    });
  });

  describe('waitForResolution', () => {
    it('wakes on a resolution made by another instance', async () => {
      const fixture = await open();
      const peer = await peerOf(fixture);
      const inquiry = await createNew(fixture.store);
      // A deadline past the test's timeout: a missed wake-up cannot end the wait in time.
      const waiting = peer.waitForResolution(inquiry.inquiryId, { deadline: Date.now() + 60 * 60_000 });
      await waitersSetUp(fixture, inquiry.inquiryId, 2);
      await fixture.store.resolve(inquiry.inquiryId, answered('L'));
      expect(await waiting).toMatchObject({ status: 'answered', answer: 'L' });
    });

    it('returns at once for an ended inquiry, and null for an unknown one', async () => {
      const { store } = await open();
      const inquiry = await createNew(store);
      await store.resolve(inquiry.inquiryId, timedOut());
      expect(await store.waitForResolution(inquiry.inquiryId)).toMatchObject({ status: 'timed_out' });
      expect(await store.waitForResolution('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeNull();
    });

    it('releases on abort without resolving', async () => {
      const fixture = await open();
      const store = await peerOf(fixture);
      const inquiry = await createNew(fixture.store);
      const controller = new AbortController();
      const waiting = store.waitForResolution(inquiry.inquiryId, { signal: controller.signal });
      await waitersSetUp(fixture, inquiry.inquiryId, 2);
      controller.abort();
      expect(await waiting).toMatchObject({ status: 'pending' });
      expect(await store.get(inquiry.inquiryId)).toMatchObject({ status: 'pending' });
      const aborted = AbortSignal.abort();
      expect(await store.waitForResolution(inquiry.inquiryId, { signal: aborted })).toMatchObject({
        status: 'pending',
      });
    });

    it('releases at the deadline without resolving', async () => {
      const { store } = await open();
      const inquiry = await createNew(store);
      const started = Date.now();
      const result = await store.waitForResolution(inquiry.inquiryId, { deadline: started + 150 });
      expect(result).toMatchObject({ status: 'pending' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      expect(await store.waitForResolution(inquiry.inquiryId, { deadline: started - 10 })).toMatchObject({
        status: 'pending',
      });
    });

    it('never misses a resolution that lands while the waiter is being set up', async () => {
      const fixture = await open();
      const peer = await peerOf(fixture);
      const rounds = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const inquiry = await createNew(fixture.store);
          // A missed wake-up would only end at the deadline (and then read the answer): a deadline
          // past the test's timeout makes it fail the test instead.
          const [waited] = await Promise.all([
            fixture.store.waitForResolution(inquiry.inquiryId, { deadline: Date.now() + 60 * 60_000 }),
            // time itself is under test: 0-3 ms offsets vary which of the wait and the resolve goes first.
            sleep(i % 4).then(() => peer.resolve(inquiry.inquiryId, answered(`r${i}`))),
          ]);
          return { waited };
        }),
      );
      for (const [i, { waited }] of rounds.entries()) {
        expect(waited).toMatchObject({ status: 'answered', answer: `r${i}` });
      }
    });

    it('wakes every waiter of one inquiry, and close releases the rest', async () => {
      const { store } = await open();
      const inquiry = await createNew(store);
      const other = await createNew(store);
      const waits = Array.from({ length: 3 }, () => store.waitForResolution(inquiry.inquiryId));
      const held = store.waitForResolution(other.inquiryId);
      // Its own resolve wakes them (each is parked as it is called).
      await store.resolve(inquiry.inquiryId, answered('S'));
      for (const waited of await Promise.all(waits)) expect(waited).toMatchObject({ status: 'answered' });
      await store.close();
      expect((await held) as Inquiry).toMatchObject({ status: 'pending' });
    });
  });
}
