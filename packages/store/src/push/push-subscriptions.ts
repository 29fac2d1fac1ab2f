import { randomBytes } from 'node:crypto';

/** The keys a browser's push subscription gives the sender (RFC 8291). */
export interface PushKeys {
  /** The browser's P-256 public key, base64url. */
  p256dh: string;
  /** The 16-byte auth secret, base64url. */
  auth: string;
}

/** One browser's (or PWA's) push subscription, kept for its user. */
export interface PushSubscriptionRecord {
  /** Unguessable; what `DELETE /api/push/subscriptions/:id` names. */
  id: string;
  userId: string;
  /** The push service URL this subscription receives at: unique per user. */
  endpoint: string;
  keys: PushKeys;
  deviceName?: string;
  /** The device token that saved it: revoking that token stops the pushes. */
  token?: PushTokenRef;
  /** Epoch ms of the first save of this endpoint for this user. */
  createdAt: number;
  /** Epoch ms of the latest save: the oldest by this goes first when the user is over the cap. */
  updatedAt: number;
}

/** The token a subscription was saved with: its `jti` and `iat` (seconds), as the revocation list keys them. */
export interface PushTokenRef {
  jti?: string;
  iat?: number;
}

/** What {@link PushSubscriptionStore.save} is given. */
export interface NewPushSubscription {
  userId: string;
  endpoint: string;
  keys: PushKeys;
  deviceName?: string;
  token?: PushTokenRef;
  /** Epoch ms of this save. */
  at: number;
}

export interface SavePushResult {
  /** The subscription's id: a new one, or the id the user's same endpoint already had. */
  id: string;
  /** False when the user's same endpoint was updated in place. */
  created: boolean;
  /** Ids of the user's oldest subscriptions dropped to stay within the cap. */
  dropped: string[];
}

/**
 * Where push subscriptions live: per user, at most a cap of them, one per endpoint.
 * Memory, SQLite (the state file) and Redis implement it and pass `runPushSubscriptionContract`.
 */
export interface PushSubscriptionStore {
  /**
   * Adds a subscription, or updates the user's subscription with the same endpoint (keys, device
   * name, `updatedAt`; the id and `createdAt` stay). Then drops the user's least recently saved
   * subscriptions beyond `maxPerUser`. One atomic step.
   */
  save(subscription: NewPushSubscription, maxPerUser: number): Promise<SavePushResult>;
  /** The user's subscriptions, least recently saved first. */
  list(userId: string): Promise<PushSubscriptionRecord[]>;
  /**
   * The same, for sending pushes: may be kept by the node between changes, so a save or delete on
   * another node shows up once the node hears of it (a pub/sub message, about a round trip later);
   * one on this store instance shows up at once.
   */
  listForPush(userId: string): Promise<PushSubscriptionRecord[]>;
  /** Deletes the user's subscription `id`; false when the user has none by that id. */
  remove(userId: string, id: string): Promise<boolean>;
  /** Deletes the user's subscription at `endpoint` (the push service said it is gone); false when none. */
  removeEndpoint(userId: string, endpoint: string): Promise<boolean>;
  close(): Promise<void>;
}

/** A new subscription id: 128 random bits, base64url. */
export function newPushSubscriptionId(): string {
  return randomBytes(16).toString('base64url');
}

/** Least recently saved first; equal times by id, the order every store uses. */
export function byAge(a: PushSubscriptionRecord, b: PushSubscriptionRecord): number {
  return a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
