/**
 * Token revocations: a token is refused once its `jti` is revoked, or once its user's
 * tokens issued up to a moment are. Every node keeps the whole list in memory and re-reads it when
 * any node records one, so checking a request costs two map lookups.
 */
export interface RevocationList {
  /** Revoked token ids → the token's `exp` in epoch seconds (0 when unknown or none). */
  readonly tokens: ReadonlyMap<string, number>;
  /** User ids → epoch second: every token of the user issued at or before it is revoked. */
  readonly users: ReadonlyMap<string, number>;
}

/** The claims a revocation is checked against. */
export interface RevocableToken {
  sub: string;
  jti?: string;
  /** Issued-at, epoch seconds; a token without one counts as issued at 0. */
  iat?: number;
}

export const emptyRevocations: RevocationList = { tokens: new Map(), users: new Map() };

/**
 * True when the list revokes `token`. A user's cutoff includes its own second (`iat` has whole
 * seconds), so a token minted in the same second as `revoke --user` is revoked too.
 */
export function isRevoked(list: RevocationList, token: RevocableToken): boolean {
  if (token.jti !== undefined && list.tokens.has(token.jti)) return true;
  const cutoff = list.users.get(token.sub);
  return cutoff !== undefined && (token.iat ?? 0) <= cutoff;
}

/** Where revocations are kept: shared by every node (Redis) or by one process (memory). */
export interface RevocationStore {
  /** Revokes one token by its `jti`; `expiresAtSec` lets the entry be dropped once it expired. */
  revokeToken(jti: string, expiresAtSec?: number): Promise<void>;
  /** Revokes every token of `userId` issued at or before `issuedUpToSec` (epoch seconds). */
  revokeUser(userId: string, issuedUpToSec: number): Promise<void>;
  /** The whole current list (entries of expired tokens left out). */
  list(): Promise<RevocationList>;
  /**
   * Calls `listener` after any node records a revocation, and after a lost subscription comes
   * back (something may have been missed): re-read {@link list} then. Returns the unsubscribe.
   */
  onChange(listener: () => void): () => void;
  /** Settles once changes are being delivered. */
  ready(): Promise<void>;
  close(): Promise<void>;
}
