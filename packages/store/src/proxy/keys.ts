/**
 * Every Redis key and channel the proxy uses, built in this one place (prefix `hitl:proxy:`).
 *
 * Hash tags keep what one script touches in one Cluster slot: a grant's hash is `{g:<grantId>}`;
 * a user's operations share `{u:<userId>}` (user ids are restricted to a safe alphabet, so the
 * idempotency key after the tag can never move it).
 */
export interface ProxyKeys {
  /** Hash: `userId`, `digest`, `state`, `expiresAt`, `decidedAt`, `usedAt`. */
  grant(grantId: string): string;
  /**
   * Hash: `digest`, `state`, `owner`, `grantId`, `inquiryId`, `result` (JSON), `updatedAt`,
   * `driveUntil`, `call` (JSON `{name, arguments}`, kept while a late approval may come).
   */
  operation(userId: string, idempotencyKey: string): string;
  /** Pub/sub channel: `[userId, key]` of each finished operation. */
  doneChannel: string;
  /** Pub/sub channel: the call key (token fingerprint + JSON-RPC id) of each call an agent cancelled. */
  cancelChannel: string;
}

export const DEFAULT_PROXY_PREFIX = 'hitl:proxy:';

/** @throws when the prefix holds `{` or `}`, which would break the hash tags. */
export function proxyKeys(prefix: string = DEFAULT_PROXY_PREFIX): ProxyKeys {
  if (/[{}]/.test(prefix)) throw new Error(`Redis key prefix must not contain "{" or "}": ${prefix}`);
  return {
    grant: (grantId) => `${prefix}grant:{g:${grantId}}`,
    operation: (userId, key) => `${prefix}op:{u:${userId}}:${key}`,
    doneChannel: `${prefix}op-done`,
    cancelChannel: `${prefix}cancel`,
  };
}
