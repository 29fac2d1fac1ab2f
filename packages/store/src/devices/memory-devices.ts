import {
  byCreation,
  type DeviceRecord,
  type DeviceStore,
  type DeviceTouch,
  type PairingRecord,
  touched,
} from './devices.js';

/** Pairings and device records of one process (`HITL_STORE=memory`): gone on restart. */
export class MemoryDeviceStore implements DeviceStore {
  private readonly pairings = new Map<string, PairingRecord>();
  private readonly byUser = new Map<string, Map<string, DeviceRecord>>();

  async createPairing(pairing: PairingRecord): Promise<void> {
    // Expired pairings go whenever a new one comes, so the map stays as small as the live ones.
    for (const [hash, old] of this.pairings) {
      if (old.expiresAt <= pairing.createdAt) this.pairings.delete(hash);
    }
    this.pairings.set(pairing.codeHash, { ...pairing });
  }

  async claimPairing(codeHash: string, now: number): Promise<PairingRecord | undefined> {
    const pairing = this.pairings.get(codeHash);
    this.pairings.delete(codeHash);
    return pairing && pairing.expiresAt > now ? pairing : undefined;
  }

  async touchDevice(touch: DeviceTouch): Promise<DeviceRecord> {
    let records = this.byUser.get(touch.userId);
    if (!records) {
      records = new Map();
      this.byUser.set(touch.userId, records);
    }
    const record = touched(records.get(touch.jti), touch);
    records.set(touch.jti, record);
    return { ...record };
  }

  async listDevices(userId: string): Promise<DeviceRecord[]> {
    const records = this.byUser.get(userId);
    return records ? [...records.values()].sort(byCreation).map((record) => ({ ...record })) : [];
  }

  async removeDevice(userId: string, jti: string): Promise<boolean> {
    return this.byUser.get(userId)?.delete(jti) ?? false;
  }

  async close(): Promise<void> {}
}
