import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyStore } from '../proxy/proxy-store.js';
import { isAdoptable } from '../proxy/proxy-store.js';
import { eventually } from './fixtures.js';

/** A store to test; `waitPollMs` overrides how often its waiters re-read without a wake-up. */
export type MakeProxyStore = (options?: { waitPollMs?: number }) => Promise<ProxyStore>;

/** One behaviour for every store: the memory, SQLite and Redis stores run these same tests. */
export function runProxyStoreContract(name: string, makeStore: MakeProxyStore): void {
  describe(`proxy store contract (${name})`, () => {
    let store: ProxyStore;
    beforeAll(async () => {
      store = await makeStore();
    });
    afterAll(async () => {
      await store?.close();
    });
    const id = () => randomUUID();

    describe('grants', () => {
      it('approves once, then lets exactly one call with the same digest through, once', async () => {
        const grantId = id();
        const now = Date.now();
        await store.createGrant({ grantId, userId: 'u1', digest: 'd1', expiresAt: now + 10_000 });
        expect(await store.consumeGrant(grantId, 'd1', now)).toBe('not_approved');
        expect(await store.decideGrant(grantId, 'approved', now)).toBe('approved');
        expect(await store.decideGrant(grantId, 'rejected', now)).toBe('not_pending');
        expect(await store.consumeGrant(grantId, 'd2', now)).toBe('mismatch');
        const tries = await Promise.all(
          Array.from({ length: 10 }, () => store.consumeGrant(grantId, 'd1', now)),
        );
        expect(tries.filter((t) => t === 'ok')).toHaveLength(1);
        expect(tries.filter((t) => t === 'used')).toHaveLength(9);
      });

      it('binds an approval of edited arguments to their digest: the asked call can no longer use it', async () => {
        const grantId = id();
        const now = Date.now();
        await store.createGrant({ grantId, userId: 'u1', digest: 'asked', expiresAt: now + 10_000 });
        expect(await store.decideGrant(grantId, 'approved', now, 'edited')).toBe('approved');
        expect(await store.consumeGrant(grantId, 'asked', now)).toBe('mismatch');
        expect(await store.consumeGrant(grantId, 'edited', now)).toBe('ok');
        expect(await store.consumeGrant(grantId, 'edited', now)).toBe('used');
        expect(await store.consumeGrant(grantId, 'asked', now)).toBe('mismatch');
      });

      it('keeps the asked digest when a rejection names another', async () => {
        const grantId = id();
        const now = Date.now();
        await store.createGrant({ grantId, userId: 'u1', digest: 'asked', expiresAt: now + 10_000 });
        expect(await store.decideGrant(grantId, 'rejected', now, 'edited')).toBe('rejected');
        expect(await store.consumeGrant(grantId, 'edited', now)).toBe('mismatch');
      });

      it('never lets a rejected grant through', async () => {
        const grantId = id();
        const now = Date.now();
        await store.createGrant({ grantId, userId: 'u1', digest: 'd', expiresAt: now + 10_000 });
        expect(await store.decideGrant(grantId, 'rejected', now)).toBe('rejected');
        expect(await store.consumeGrant(grantId, 'd', now)).toBe('not_approved');
      });

      it('expires an approval that arrives after the expiry: nothing can use it', async () => {
        const grantId = id();
        const now = Date.now();
        await store.createGrant({ grantId, userId: 'u1', digest: 'd', expiresAt: now + 1000 });
        expect(await store.decideGrant(grantId, 'approved', now + 1001)).toBe('expired');
        expect(await store.consumeGrant(grantId, 'd', now + 1001)).toBe('expired');
        expect(await store.consumeGrant(grantId, 'd', now)).toBe('expired');
      });

      it('expires an approved grant used after the expiry; exactly at the expiry it still works', async () => {
        const now = Date.now();
        const late = id();
        await store.createGrant({ grantId: late, userId: 'u1', digest: 'd', expiresAt: now + 1000 });
        expect(await store.decideGrant(late, 'approved', now)).toBe('approved');
        expect(await store.consumeGrant(late, 'd', now + 1001)).toBe('expired');
        expect(await store.consumeGrant(late, 'd', now)).toBe('expired');
        const edge = id();
        await store.createGrant({ grantId: edge, userId: 'u1', digest: 'd', expiresAt: now + 1000 });
        expect(await store.decideGrant(edge, 'approved', now + 1000)).toBe('approved');
        expect(await store.consumeGrant(edge, 'd', now + 1000)).toBe('ok');
      });

      it('knows no unknown grant', async () => {
        expect(await store.decideGrant(id(), 'approved', Date.now())).toBe('not_found');
        expect(await store.consumeGrant(id(), 'd', Date.now())).toBe('not_found');
      });
    });

    describe('operations', () => {
      const begin = (userId: string, key: string, owner: string, digest = 'd', leaseMs = 10_000) =>
        store.beginOperation({ userId, key, digest, state: 'in_progress', owner }, leaseMs, Date.now());

      it('gives a key to exactly one of many concurrent callers; the rest see the holder', async () => {
        const key = id();
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => begin('u1', key, `o${i}`)));
        const winners = results.filter((r) => r.started);
        expect(winners).toHaveLength(1);
        const owners = new Set(results.flatMap((r) => (r.started ? [] : [r.existing.owner])));
        expect(owners.size).toBe(1);
      });

      it('keeps keys per user', async () => {
        const key = id();
        expect((await begin('u1', key, 'a')).started).toBe(true);
        expect((await begin('u2', key, 'b')).started).toBe(true);
      });

      it('moves along only for its owner and wakes waiters with the stored result', async () => {
        const key = id();
        await begin('u1', key, 'owner', 'digest-1');
        expect(await store.updateOperation('u1', key, 'thief', { state: 'in_progress' }, Date.now())).toBe(
          false,
        );
        expect(
          await store.updateOperation(
            'u1',
            key,
            'owner',
            { state: 'awaiting_approval', inquiryId: 'inq-1', grantId: 'g-1' },
            Date.now(),
          ),
        ).toBe(true);
        expect(await store.getOperation('u1', key)).toMatchObject({
          state: 'awaiting_approval',
          inquiryId: 'inq-1',
          grantId: 'g-1',
          digest: 'digest-1',
        });
        let reads = 0;
        const unfinished = () => {
          reads += 1;
          return false;
        };
        const waiters = Promise.all(
          Array.from({ length: 5 }, () =>
            store.waitForOperation('u1', key, AbortSignal.timeout(10_000), unfinished),
          ),
        );
        // Finish only once every waiter has read the operation unfinished (and so is waiting).
        await eventually(() => reads >= 5);
        const result = { content: [{ type: 'text', text: 'done once' }] };
        expect(await store.finishOperation('u1', key, 'thief', { no: 1 }, 60_000, Date.now())).toBe(false);
        expect(await store.finishOperation('u1', key, 'owner', result, 60_000, Date.now())).toBe(true);
        const woken = await waiters;
        for (const op of woken) expect(op).toMatchObject({ state: 'done', result });
        expect(await store.updateOperation('u1', key, 'owner', { state: 'in_progress' }, Date.now())).toBe(
          false,
        );
      });

      it('wakes a waiter from the finish, not from a poll', async () => {
        // Its waiters never poll within the test's life: a missed wake-up would abort the wait.
        const quiet = await makeStore({ waitPollMs: 60 * 60_000 });
        try {
          const key = id();
          const op = { userId: 'u1', key, digest: 'd', state: 'in_progress', owner: 'owner' } as const;
          expect((await quiet.beginOperation(op, 60_000, Date.now())).started).toBe(true);
          const reads: string[] = [];
          const waiting = quiet.waitForOperation('u1', key, AbortSignal.timeout(30_000), (op) => {
            reads.push(op.state);
            return false;
          });
          // Finish only once the waiter has read the operation unfinished (and so is waiting).
          await eventually(() => reads.length === 1);
          await quiet.finishOperation('u1', key, 'owner', { ok: true }, 60_000, Date.now());
          expect(await waiting).toMatchObject({ state: 'done' });
        } finally {
          await quiet.close();
        }
      });

      it('lets a lapsed lease go: waiters get null and the key can be claimed again', async () => {
        const key = id();
        await begin('u1', key, 'crashed', 'd', 300);
        const waiting = store.waitForOperation('u1', key, AbortSignal.timeout(10_000));
        expect(await waiting).toBeNull();
        expect((await begin('u1', key, 'next')).started).toBe(true);
        expect(await store.finishOperation('u1', key, 'crashed', {}, 60_000, Date.now())).toBe(false);
      });

      it('hands a parked operation to exactly one of many collectors, and keeps its call', async () => {
        const key = id();
        const now = Date.now();
        const call = { name: 'charge', arguments: { amount: 5 } };
        await store.beginOperation(
          {
            userId: 'u1',
            key,
            digest: 'd',
            state: 'awaiting_approval',
            owner: 'first',
            driveUntil: now + 5000,
            call,
          },
          60_000,
          now,
        );
        expect(await store.getOperation('u1', key)).toMatchObject({ driveUntil: now + 5000, call });
        // Driven by its owner until driveUntil: nobody may adopt it before.
        expect(await store.adoptOperation('u1', key, 'early', now + 9000, now)).toBeNull();
        let reads = 0;
        const settled = store.waitForOperation('u1', key, AbortSignal.timeout(10_000), (op) => {
          reads += 1;
          return isAdoptable(op, Date.now());
        });
        // Park it only once the waiter has read it driven (and so is waiting).
        await eventually(() => reads >= 1);
        const patch = { state: 'awaiting_approval' as const, grantId: 'g', inquiryId: 'i', driveUntil: 0 };
        expect(await store.updateOperation('u1', key, 'first', patch, now)).toBe(true);
        expect(await settled).toMatchObject({ driveUntil: 0, grantId: 'g', inquiryId: 'i' });
        const tries = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.adoptOperation('u1', key, `c${i}`, now + 9000, now)),
        );
        const adopted = tries.filter((op) => op !== null);
        expect(adopted).toHaveLength(1);
        expect(adopted[0]).toMatchObject({ driveUntil: now + 9000, grantId: 'g', call });
        const winner = adopted[0]?.owner ?? '';
        expect(await store.updateOperation('u1', key, 'first', { state: 'in_progress' }, now)).toBe(false);
        // Its driver's time ran out (it died): another collector may take it over.
        expect(await store.adoptOperation('u1', key, 'late', now + 20_000, now + 9001)).toMatchObject({
          owner: 'late',
        });
        expect(await store.updateOperation('u1', key, winner, { state: 'in_progress' }, now)).toBe(false);
        expect(await store.updateOperation('u1', key, 'late', { state: 'in_progress' }, now)).toBe(true);
        expect(await store.adoptOperation('u1', key, 'after', now + 30_000, now + 40_000)).toBeNull();
      });

      it('never hands over an operation without a late approval', async () => {
        const key = id();
        const now = Date.now();
        await begin('u1', key, 'owner');
        expect(await store.adoptOperation('u1', key, 'other', now + 1000, now + 60_000)).toBeNull();
        expect(await store.adoptOperation('u1', id(), 'other', now + 1000, now)).toBeNull();
      });

      it('stops waiting when the signal aborts', async () => {
        const key = id();
        await begin('u1', key, 'owner');
        const controller = new AbortController();
        const waiting = store.waitForOperation('u1', key, controller.signal);
        controller.abort(new Error('caller went away'));
        await expect(waiting).rejects.toThrow('caller went away');
        expect(await store.getOperation('u9', key)).toBeNull();
      });
    });

    describe('cancel relay', () => {
      it('lets every listener hear a published cancel, once each', async () => {
        const heard: string[] = [];
        await store.onCancel((key) => heard.push(`a:${key}`));
        await store.onCancel((key) => heard.push(`b:${key}`));
        const key = id();
        await store.publishCancel(key);
        await eventually(() => heard.length >= 2);
        expect(heard.sort()).toEqual([`a:${key}`, `b:${key}`]);
      });
    });
  });
}
