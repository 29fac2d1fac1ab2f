import type { Result } from 'ioredis';
import type { RawReply } from '../lua-kit/script-loader.js';
import { readReply } from '../lua-kit/script-reply.js';
import { RedisBackedStore, type RedisStoreOptions } from '../redis/redis-backed-store.js';
import { defineScripts } from '../redis/scripts.js';
import {
  byCreation,
  type DeviceRecord,
  type DeviceStore,
  type DeviceTouch,
  type PairingRecord,
  touched,
} from './devices.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/pairing-claim-1.lua */
    hitlPairingClaim(pairing: string, now: number): Result<RawReply, Context>;
    /** src/lua/device-touch-1.lua */
    hitlDeviceTouch(
      devices: string,
      jti: string,
      newRecordJson: string,
      rename: '0' | '1',
      now: number,
      deviceName: string,
    ): Result<RawReply, Context>;
  }
}

enum Code {
  Missing = 0,
  Done = 1,
}

export type RedisDeviceOptions = RedisStoreOptions;

/**
 * Pairings and device records shared by every node: a pairing is one string keyed by its code's
 * hash (expiring with it), claimed by one script; a user's devices are one hash under the user's
 * hash tag `{u:<userId>}`, touched by one script.
 */
export class RedisDeviceStore extends RedisBackedStore implements DeviceStore {
  constructor(options: RedisDeviceOptions) {
    super(options);
    defineScripts(this.redis);
  }

  async createPairing(pairing: PairingRecord): Promise<void> {
    await this.redis.set(
      this.keys.pairing(pairing.codeHash),
      JSON.stringify(pairing),
      'PXAT',
      String(pairing.expiresAt),
    );
  }

  async claimPairing(codeHash: string, now: number): Promise<PairingRecord | undefined> {
    const reply = await this.redis.hitlPairingClaim(this.keys.pairing(codeHash), now);
    const { code, fields } = readReply('pairing-claim-1', reply, [Code.Missing, Code.Done], Code);
    return code === Code.Done ? (JSON.parse(fields[0] ?? '') as PairingRecord) : undefined;
  }

  async touchDevice(touch: DeviceTouch): Promise<DeviceRecord> {
    const fresh = touched(undefined, touch);
    const reply = await this.redis.hitlDeviceTouch(
      this.keys.userDevices(touch.userId),
      touch.jti,
      JSON.stringify(fresh),
      touch.rename ? '1' : '0',
      touch.at,
      touch.deviceName,
    );
    const { fields } = readReply('device-touch-1', reply, [Code.Missing, Code.Done], Code);
    return JSON.parse(fields[0] ?? '') as DeviceRecord;
  }

  async listDevices(userId: string): Promise<DeviceRecord[]> {
    const records = await this.redis.hvals(this.keys.userDevices(userId));
    return records.map((json) => JSON.parse(json) as DeviceRecord).sort(byCreation);
  }

  async removeDevice(userId: string, jti: string): Promise<boolean> {
    return (await this.redis.hdel(this.keys.userDevices(userId), jti)) > 0;
  }

  async close(): Promise<void> {
    await this.release();
  }
}
