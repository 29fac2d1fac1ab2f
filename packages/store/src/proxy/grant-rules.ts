import type { ConsumeOutcome, DecideOutcome, GrantState, GrantVerdict } from './proxy-store.js';

/**
 * The grant rules, written once: pure functions the memory and SQLite stores apply to a grant they
 * read. The Redis store runs the same rules inside its scripts (lua/grant-decide-1.lua,
 * lua/grant-consume-1.lua, so the read and the move are one atomic step); the store contract suite
 * (test/store-contract.ts) runs on all three and proves they agree.
 */

/** How long a decided or used grant stays readable after its expiry. */
export const GRANT_RETENTION_MS = 60 * 60_000;

/** When a grant that expires at `expiresAt` is forgotten (epoch ms). */
export function grantRemoveAt(expiresAt: number): number {
  return expiresAt + GRANT_RETENTION_MS;
}

/** What a rule reads of a grant. */
export interface GrantFacts {
  state: GrantState;
  digest: string;
  expiresAt: number;
}

/** A rule's answer: the outcome to return, and the state to move the grant to (none: leave it). */
export interface GrantStep<Outcome> {
  outcome: Outcome;
  to?: GrantState;
  /** The digest to bind the grant to from now on (an approval of edited arguments). */
  digest?: string;
}

/** Records the human's verdict once; a verdict after `expiresAt` expires the grant instead. */
export function decideRule(
  grant: GrantFacts | undefined,
  verdict: GrantVerdict,
  now: number,
  digest?: string,
): GrantStep<DecideOutcome> {
  if (!grant) return { outcome: 'not_found' };
  if (grant.state !== 'pending') return { outcome: 'not_pending' };
  if (now > grant.expiresAt) return { outcome: 'expired', to: 'expired' };
  return verdict === 'approved' && digest
    ? { outcome: verdict, to: verdict, digest }
    : { outcome: verdict, to: verdict };
}

/**
 * Uses an approved grant for the call with `digest`: only that digest, before expiry, once. A digest
 * that differs leaves the grant untouched (another call cannot burn it).
 */
export function consumeRule(
  grant: GrantFacts | undefined,
  digest: string,
  now: number,
): GrantStep<ConsumeOutcome> {
  if (!grant) return { outcome: 'not_found' };
  if (grant.digest !== digest) return { outcome: 'mismatch' };
  if (grant.state === 'used' || grant.state === 'expired') return { outcome: grant.state };
  if (grant.state !== 'approved') return { outcome: 'not_approved' };
  if (now > grant.expiresAt) return { outcome: 'expired', to: 'expired' };
  return { outcome: 'ok', to: 'used' };
}
