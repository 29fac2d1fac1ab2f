import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceStore, PairingRecord } from '../devices/devices.js';

/** A store under test and how to clean up after it. */
export interface DeviceFixture {
  store: DeviceStore;
  cleanup(): Promise<void>;
}

export type MakeDevices = () => Promise<DeviceFixture>;

/** Real Redis expires keys by the wall clock, so the suite's times are near the real now. */
const NOW = Date.now();

const pairing = (n: number, overrides: Partial<PairingRecord> = {}): PairingRecord => ({
  pairingId: `pairing-${n}`,
  userId: 'u1',
  codeHash: `hash-${n}`.padEnd(64, '0'),
  createdAt: NOW,
  expiresAt: NOW + 600_000,
  makerJti: `maker-${n}`,
  makerIat: 1767225600,
  ...overrides,
});

/**
 * The behaviour every `DeviceStore` must show, as a vitest suite.
 * @example
 * runDeviceContract('memory', async () => {
 *   const store = new MemoryDeviceStore();
 *   return { store, cleanup: () => store.close() };
 * });
 */
export function runDeviceContract(name: string, make: MakeDevices): void {
  describe(`DeviceStore contract: ${name}`, () => {
    const opened: DeviceFixture[] = [];
    const open = async () => {
      const fixture = await make();
      opened.push(fixture);
      return fixture.store;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((fixture) => fixture.cleanup()));
    });

    it('a pairing is claimed once, with everything it was made with', async () => {
      const store = await open();
      await store.createPairing(pairing(1));
      expect(await store.claimPairing(pairing(1).codeHash, NOW + 1000)).toEqual(pairing(1));
      expect(await store.claimPairing(pairing(1).codeHash, NOW + 1001)).toBeUndefined();
    });

    it('a pairing made by a token without jti or iat comes back without them', async () => {
      const store = await open();
      const { makerJti: _jti, makerIat: _iat, ...anonymous } = pairing(1);
      await store.createPairing(anonymous);
      expect(await store.claimPairing(anonymous.codeHash, NOW + 1)).toEqual(anonymous);
    });

    it('an unknown code claims nothing; another code stays claimable', async () => {
      const store = await open();
      await store.createPairing(pairing(1));
      expect(await store.claimPairing(pairing(2).codeHash, NOW)).toBeUndefined();
      expect(await store.claimPairing(pairing(1).codeHash, NOW)).toMatchObject({ pairingId: 'pairing-1' });
    });

    it('an expired pairing claims nothing, and is gone after the try', async () => {
      const store = await open();
      const expiresAt = NOW + 600_000;
      await store.createPairing(pairing(1, { expiresAt }));
      expect(await store.claimPairing(pairing(1).codeHash, expiresAt)).toBeUndefined();
      expect(await store.claimPairing(pairing(1).codeHash, expiresAt - 1)).toBeUndefined();
    });

    it('of 50 concurrent claims of one code exactly one wins', async () => {
      const store = await open();
      await store.createPairing(pairing(1));
      const claims = await Promise.all(
        Array.from({ length: 50 }, () => store.claimPairing(pairing(1).codeHash, NOW + 1)),
      );
      expect(claims.filter((claim) => claim !== undefined)).toHaveLength(1);
    });

    it('a touch creates a record, later touches move lastSeenAt forward only', async () => {
      const store = await open();
      const first = await store.touchDevice({
        userId: 'u1',
        jti: 'j1',
        deviceName: 'Phone',
        iat: 1767225600,
        exp: 1774915200,
        at: NOW,
      });
      expect(first).toEqual({
        jti: 'j1',
        userId: 'u1',
        deviceName: 'Phone',
        createdAt: NOW,
        lastSeenAt: NOW,
        iat: 1767225600,
        exp: 1774915200,
      });
      await store.touchDevice({ userId: 'u1', jti: 'j1', deviceName: 'Other', at: NOW + 5000 });
      await store.touchDevice({ userId: 'u1', jti: 'j1', deviceName: 'Other', at: NOW + 1000 });
      expect(await store.listDevices('u1')).toEqual([{ ...first, lastSeenAt: NOW + 5000 }]);
    });

    it('a device that names itself renames its record', async () => {
      const store = await open();
      await store.touchDevice({ userId: 'u1', jti: 'j1', deviceName: 'Phone', at: NOW });
      const renamed = await store.touchDevice({
        userId: 'u1',
        jti: 'j1',
        deviceName: 'Kitchen tablet',
        rename: true,
        at: NOW + 10,
      });
      expect(renamed).toMatchObject({ deviceName: 'Kitchen tablet', createdAt: NOW, lastSeenAt: NOW + 10 });
      expect((await store.listDevices('u1'))[0]?.deviceName).toBe('Kitchen tablet');
    });

    it('lists a user’s devices oldest first, and only that user’s', async () => {
      const store = await open();
      await store.touchDevice({ userId: 'u1', jti: 'b', deviceName: 'Second', at: NOW + 2 });
      await store.touchDevice({ userId: 'u1', jti: 'a', deviceName: 'First', at: NOW + 1 });
      await store.touchDevice({ userId: 'u2', jti: 'c', deviceName: 'Theirs', at: NOW });
      expect((await store.listDevices('u1')).map((d) => d.deviceName)).toEqual(['First', 'Second']);
      expect((await store.listDevices('u2')).map((d) => d.jti)).toEqual(['c']);
      expect(await store.listDevices('nobody')).toEqual([]);
    });

    it('removes a device only within its own user', async () => {
      const store = await open();
      await store.touchDevice({ userId: 'u1', jti: 'a', deviceName: 'Mine', at: NOW });
      expect(await store.removeDevice('u2', 'a')).toBe(false);
      expect(await store.listDevices('u1')).toHaveLength(1);
      expect(await store.removeDevice('u1', 'a')).toBe(true);
      expect(await store.removeDevice('u1', 'a')).toBe(false);
      expect(await store.listDevices('u1')).toEqual([]);
    });
  });
}
