import { afterEach, describe, expect, it } from 'vitest';
import type { PushKeys, PushSubscriptionStore } from '../push/push-subscriptions.js';

/** A store under test and how to clean up after it. */
export interface PushFixture {
  store: PushSubscriptionStore;
  cleanup(): Promise<void>;
}

export type MakePushStore = () => Promise<PushFixture>;

const keys = (n: number): PushKeys => ({
  p256dh: `BP${String(n).padStart(85, 'x')}`,
  auth: `auth${String(n).padStart(18, '0')}`,
});
const endpoint = (n: number) => `https://push.example/send/${n}`;

/**
 * The behaviour every `PushSubscriptionStore` must show, as a vitest suite.
 * @example
 * runPushSubscriptionContract('memory', async () => {
 *   const store = new MemoryPushSubscriptionStore();
 *   return { store, cleanup: () => store.close() };
 * });
 */
export function runPushSubscriptionContract(name: string, make: MakePushStore): void {
  describe(`PushSubscriptionStore contract: ${name}`, () => {
    const opened: PushFixture[] = [];
    const open = async () => {
      const fixture = await make();
      opened.push(fixture);
      return fixture.store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((fixture) => fixture.cleanup()));
    });

    it('adds a subscription and lists it for its user only', async () => {
      const store = await open();
      const saved = await store.save(
        {
          userId: 'u1',
          endpoint: endpoint(1),
          keys: keys(1),
          deviceName: 'phone',
          token: { jti: 'jti-1', iat: 1700000000 },
          at: 1000,
        },
        20,
      );
      expect(saved).toMatchObject({ created: true, dropped: [] });
      expect(saved.id).toMatch(/^[A-Za-z0-9_-]{16,}$/);
      expect(await store.list('u1')).toEqual([
        {
          id: saved.id,
          userId: 'u1',
          endpoint: endpoint(1),
          keys: keys(1),
          deviceName: 'phone',
          token: { jti: 'jti-1', iat: 1700000000 },
          createdAt: 1000,
          updatedAt: 1000,
        },
      ]);
      expect(await store.list('u2')).toEqual([]);
    });

    it('lists for sending what this instance saved and deleted, at once', async () => {
      const store = await open();
      expect(await store.listForPush('u1')).toEqual([]);
      const first = await store.save({ userId: 'u1', endpoint: endpoint(1), keys: keys(1), at: 1000 }, 20);
      expect((await store.listForPush('u1')).map((record) => record.id)).toEqual([first.id]);
      await store.save({ userId: 'u1', endpoint: endpoint(1), keys: keys(9), at: 2000 }, 20);
      expect(await store.listForPush('u1')).toEqual(await store.list('u1'));
      expect((await store.listForPush('u1'))[0]?.keys).toEqual(keys(9));
      expect(await store.removeEndpoint('u1', endpoint(1))).toBe(true);
      expect(await store.listForPush('u1')).toEqual([]);
    });

    it('the same endpoint again updates the record in place (same id, new keys), no duplicate', async () => {
      const store = await open();
      const first = await store.save({ userId: 'u1', endpoint: endpoint(1), keys: keys(1), at: 1000 }, 20);
      const again = await store.save(
        { userId: 'u1', endpoint: endpoint(1), keys: keys(2), deviceName: 'laptop', at: 2000 },
        20,
      );
      expect(again).toEqual({ id: first.id, created: false, dropped: [] });
      const list = await store.list('u1');
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({
        keys: keys(2),
        deviceName: 'laptop',
        createdAt: 1000,
        updatedAt: 2000,
      });
    });

    it('the same endpoint for another user is that user’s own subscription', async () => {
      const store = await open();
      const a = await store.save({ userId: 'u1', endpoint: endpoint(1), keys: keys(1), at: 1000 }, 20);
      const b = await store.save({ userId: 'u2', endpoint: endpoint(1), keys: keys(1), at: 1001 }, 20);
      expect(b.id).not.toBe(a.id);
      expect(await store.list('u1')).toHaveLength(1);
      expect(await store.list('u2')).toHaveLength(1);
    });

    it('keeps at most the cap per user: the least recently saved goes', async () => {
      const store = await open();
      const ids: string[] = [];
      for (let n = 0; n < 20; n += 1) {
        ids.push(
          (await store.save({ userId: 'u1', endpoint: endpoint(n), keys: keys(n), at: 1000 + n }, 20)).id,
        );
      }
      // Re-saving the oldest makes it the newest: the second oldest goes instead.
      await store.save({ userId: 'u1', endpoint: endpoint(0), keys: keys(0), at: 2000 }, 20);
      const extra = await store.save({ userId: 'u1', endpoint: endpoint(20), keys: keys(20), at: 2001 }, 20);
      expect(extra).toMatchObject({ created: true, dropped: [ids[1]] });
      const list = await store.list('u1');
      expect(list).toHaveLength(20);
      expect(list.map((record) => record.endpoint)).not.toContain(endpoint(1));
      expect(list.at(-2)?.endpoint).toBe(endpoint(0));
      expect(list.at(-1)?.endpoint).toBe(endpoint(20));
      // The dropped endpoint is really gone: saving it again makes a new record.
      const back = await store.save({ userId: 'u1', endpoint: endpoint(1), keys: keys(1), at: 2002 }, 20);
      expect(back.created).toBe(true);
      expect(back.id).not.toBe(ids[1]);
    });

    it('a lower cap drops several at once, oldest first', async () => {
      const store = await open();
      const ids: string[] = [];
      for (let n = 0; n < 5; n += 1) {
        ids.push(
          (await store.save({ userId: 'u1', endpoint: endpoint(n), keys: keys(n), at: 1000 + n }, 20)).id,
        );
      }
      const saved = await store.save({ userId: 'u1', endpoint: endpoint(9), keys: keys(9), at: 3000 }, 3);
      expect(saved.dropped).toEqual(ids.slice(0, 3));
      expect((await store.list('u1')).map((record) => record.endpoint)).toEqual([
        endpoint(3),
        endpoint(4),
        endpoint(9),
      ]);
    });

    it('deletes by id only within the user: another user’s id is left alone', async () => {
      const store = await open();
      const a = await store.save({ userId: 'u1', endpoint: endpoint(1), keys: keys(1), at: 1000 }, 20);
      expect(await store.remove('u2', a.id)).toBe(false);
      expect(await store.list('u1')).toHaveLength(1);
      expect(await store.remove('u1', a.id)).toBe(true);
      expect(await store.list('u1')).toEqual([]);
      expect(await store.remove('u1', a.id)).toBe(false);
      // Its endpoint is free again: a new save is a new record.
      expect(
        (await store.save({ userId: 'u1', endpoint: endpoint(1), keys: keys(1), at: 2000 }, 20)).created,
      ).toBe(true);
    });

    it('deletes by endpoint within the user', async () => {
      const store = await open();
      await store.save({ userId: 'u1', endpoint: endpoint(1), keys: keys(1), at: 1000 }, 20);
      await store.save({ userId: 'u1', endpoint: endpoint(2), keys: keys(2), at: 1001 }, 20);
      await store.save({ userId: 'u2', endpoint: endpoint(1), keys: keys(1), at: 1002 }, 20);
      expect(await store.removeEndpoint('u1', endpoint(1))).toBe(true);
      expect(await store.removeEndpoint('u1', endpoint(1))).toBe(false);
      expect((await store.list('u1')).map((record) => record.endpoint)).toEqual([endpoint(2)]);
      expect(await store.list('u2')).toHaveLength(1);
    });

    it('concurrent saves of new endpoints never leave more than the cap', async () => {
      const store = await open();
      await Promise.all(
        Array.from({ length: 30 }, (_, n) =>
          store.save({ userId: 'u1', endpoint: endpoint(n), keys: keys(n), at: 1000 + n }, 20),
        ),
      );
      expect(await store.list('u1')).toHaveLength(20);
    });
  });
}
