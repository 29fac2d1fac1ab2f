/** One registered passkey (a WebAuthn credential) of one person. */
export interface PasskeyRecord {
  /** The credential id, base64url: unique across every user. */
  id: string;
  userId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number;
  transports?: string[];
  /** Which device registered it (as it named itself). */
  deviceName?: string;
  createdAt: number;
  lastUsedAt?: number;
}

/**
 * A challenge the node issued, kept until it is used once or expires: a registration's, or an
 * approval's, which binds the inquiry, the digest of the exact arguments and a single-use nonce.
 */
export interface ChallengeRecord {
  /** The challenge as the browser signs it (base64url). */
  challenge: string;
  userId: string;
  purpose: 'register' | 'approve';
  inquiryId?: string;
  argumentsDigest?: string;
  nonce?: string;
  /** Epoch ms; a take after it finds nothing. */
  expiresAt: number;
}

/** What {@link PasskeyStore.use} found. */
export type PasskeyUse = 'used' | 'not_found' | 'counter_not_increased';

/**
 * Passkeys and the challenges issued for them, shared by every node (any node verifies an assertion;
 * a challenge is taken once, wherever). Memory, SQLite and Redis pass `runPasskeyContract`.
 */
export interface PasskeyStore {
  /** Keeps a new passkey; `exists` when its credential id is registered already (to anyone). */
  add(record: PasskeyRecord): Promise<'added' | 'exists'>;
  list(userId: string): Promise<PasskeyRecord[]>;
  get(userId: string, id: string): Promise<PasskeyRecord | null>;
  remove(userId: string, id: string): Promise<boolean>;
  /**
   * Records a verified use: the counter moves to `counter`, in one step with the check that it goes
   * up (a counter that does not, while either is non-zero, is a cloned authenticator or a replay).
   */
  use(userId: string, id: string, counter: number, at: number): Promise<PasskeyUse>;
  putChallenge(record: ChallengeRecord): Promise<void>;
  /** The challenge, taken: a second take (on any node) finds nothing; so does one after it expired. */
  takeChallenge(challenge: string, now: number): Promise<ChallengeRecord | null>;
  close(): Promise<void>;
}

/** Whether a use with `next` may follow `stored` (WebAuthn §6.1.1: both zero means no counter). */
export function counterMovesOn(stored: number, next: number): boolean {
  return (stored === 0 && next === 0) || next > stored;
}
