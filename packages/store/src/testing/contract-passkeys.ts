import { describe, expect, it } from 'vitest';
import type { PasskeyRecord, PasskeyStore } from '../passkeys/passkeys.js';
import { openFixtures } from './fixtures.js';

export interface PasskeyFixture {
  store: PasskeyStore;
  /** Another node on the same data; absent for a single-node store. */
  peer?: () => Promise<PasskeyStore>;
  cleanup(): Promise<void>;
}

export type MakePasskeys = () => Promise<PasskeyFixture>;

function passkey(userId: string, overrides: Partial<PasskeyRecord> = {}): PasskeyRecord {
  return {
    id: `cred-${Math.random().toString(36).slice(2)}`,
    userId,
    publicKey: 'pQECAyYgASFYIA',
    counter: 0,
    deviceName: 'phone',
    createdAt: Date.now(),
    ...overrides,
  };
}

/** What every `PasskeyStore` must do: keys per person, counters that only go up, challenges used once. */
export function runPasskeyContract(name: string, make: MakePasskeys): void {
  describe(`PasskeyStore contract: ${name}`, () => {
    const open = openFixtures(make);

    it("keeps each person's passkeys apart; a credential id is registered once, to anyone", async () => {
      const { store } = await open();
      const mine = passkey('ann', { createdAt: 1 });
      const second = passkey('ann', { createdAt: 2 });
      expect(await store.add(mine)).toBe('added');
      expect(await store.add(second)).toBe('added');
      expect(await store.add({ ...mine, userId: 'bob' })).toBe('exists');
      expect((await store.list('ann')).map((k) => k.id)).toEqual([mine.id, second.id]);
      expect(await store.list('bob')).toEqual([]);
      expect(await store.get('bob', mine.id)).toBeNull();
      expect(await store.remove('bob', mine.id)).toBe(false);
      expect(await store.remove('ann', mine.id)).toBe(true);
      expect(await store.get('ann', mine.id)).toBeNull();
    });

    it('moves a counter only upwards (both zero: an authenticator with none)', async () => {
      const { store } = await open();
      const counted = passkey('ann', { counter: 5 });
      const none = passkey('ann');
      await store.add(counted);
      await store.add(none);
      expect(await store.use('ann', counted.id, 6, 100)).toBe('used');
      expect(await store.use('ann', counted.id, 6, 101)).toBe('counter_not_increased');
      expect(await store.use('ann', counted.id, 3, 102)).toBe('counter_not_increased');
      expect(await store.get('ann', counted.id)).toMatchObject({ counter: 6, lastUsedAt: 100 });
      expect(await store.use('ann', none.id, 0, 103)).toBe('used');
      expect(await store.use('bob', none.id, 1, 104)).toBe('not_found');
    });

    it('a challenge is taken once, on any node, and not after it expires', async () => {
      const fixture = await open();
      const peer = fixture.peer ? await fixture.peer() : fixture.store;
      const now = Date.now();
      const live = {
        challenge: `c-${now}-a`,
        userId: 'ann',
        purpose: 'approve' as const,
        inquiryId: 'i',
        expiresAt: now + 60_000,
      };
      await fixture.store.putChallenge(live);
      expect(await peer.takeChallenge(live.challenge, now)).toEqual(live);
      expect(await fixture.store.takeChallenge(live.challenge, now)).toBeNull();
      const old = { ...live, challenge: `c-${now}-b`, expiresAt: now + 60_000 };
      await fixture.store.putChallenge(old);
      expect(await fixture.store.takeChallenge(old.challenge, now + 60_001)).toBeNull();
      expect(await fixture.store.takeChallenge('never-issued', now)).toBeNull();
    });
  });
}
