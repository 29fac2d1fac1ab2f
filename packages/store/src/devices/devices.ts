/**
 * Pairings and device records. A pairing is a one-time code a signed-in device made
 * for its user; a device record is one device token of a user (by its `jti`) with the name the
 * person gave it and when it was last seen. Both live in the store so any node can claim a pairing
 * another node made, and every node lists the same devices.
 */
export interface PairingRecord {
  /** Unguessable; names the pairing in logs and the 201 (never the code). */
  pairingId: string;
  userId: string;
  /** SHA-256 of the code (hex): what the store keys on, so a dump of it holds no live code. */
  codeHash: string;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms: at and after this the pairing is gone. */
  expiresAt: number;
  /**
   * The device token that made the pairing: its `jti` and issued-at (epoch seconds), when it has
   * them. A claim is refused once that token is revoked (by `jti`, or its user's tokens issued up
   * to a moment at or after `makerIat`): a pairing never outlives the token that made it.
   */
  makerJti?: string;
  makerIat?: number;
}

export interface DeviceRecord {
  /** The device token's id. */
  jti: string;
  userId: string;
  deviceName: string;
  /** Epoch ms: paired, or first seen. */
  createdAt: number;
  /** Epoch ms: the latest touch (never goes back). */
  lastSeenAt: number;
  /** The token's issued-at and expiry, epoch seconds, when it has them (revocation and expiry checks). */
  iat?: number;
  exp?: number;
}

/** What {@link DeviceStore.touchDevice} is given. */
export interface DeviceTouch {
  userId: string;
  jti: string;
  /** The name a new record gets; an existing record takes it only with `rename`. */
  deviceName: string;
  /** True when the device named itself just now (a handshake's `deviceName`): the record takes the name. */
  rename?: boolean;
  iat?: number;
  exp?: number;
  /** Epoch ms of this sighting. */
  at: number;
}

/**
 * Where pairings and device records live. Memory, SQLite (the state file) and Redis implement it
 * and pass `runDeviceContract`.
 */
export interface DeviceStore {
  /** Keeps a pairing until its `expiresAt` (a code already in use is replaced: codes are random). */
  createPairing(pairing: PairingRecord): Promise<void>;
  /**
   * Takes the pairing of `codeHash` away in one atomic step and returns it, if it exists and has
   * not expired at `now`; otherwise `undefined`. Of many concurrent claims of one code, one wins.
   */
  claimPairing(codeHash: string, now: number): Promise<PairingRecord | undefined>;
  /** Records a sighting of a device token: creates the record, or moves `lastSeenAt` forward. */
  touchDevice(touch: DeviceTouch): Promise<DeviceRecord>;
  /** The user's device records, oldest first (by `createdAt`, then `jti`). */
  listDevices(userId: string): Promise<DeviceRecord[]>;
  /** Deletes the user's record of `jti`; false when the user has none by that id. */
  removeDevice(userId: string, jti: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Oldest first; equal times by jti, the order every store uses. */
export function byCreation(a: DeviceRecord, b: DeviceRecord): number {
  return a.createdAt - b.createdAt || (a.jti < b.jti ? -1 : a.jti > b.jti ? 1 : 0);
}

/** The record a touch leaves, given the one before it (pure: every store applies this rule). */
export function touched(before: DeviceRecord | undefined, touch: DeviceTouch): DeviceRecord {
  const { userId, jti, deviceName, rename, iat, exp, at } = touch;
  if (!before) {
    return {
      jti,
      userId,
      deviceName,
      createdAt: at,
      lastSeenAt: at,
      ...(iat !== undefined ? { iat } : {}),
      ...(exp !== undefined ? { exp } : {}),
    };
  }
  return {
    ...before,
    deviceName: rename ? deviceName : before.deviceName,
    lastSeenAt: Math.max(before.lastSeenAt, at),
  };
}
