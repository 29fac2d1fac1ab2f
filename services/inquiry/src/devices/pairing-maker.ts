import type { TokenClaims } from '@hitl/protocol';
import { isRevoked, type PairingRecord, type RevocationStore } from '@hitl/store';

/** What a pairing keeps of the device token that made it (its `jti` and issued-at, when it has them). */
export function pairingMaker(claims: TokenClaims): Pick<PairingRecord, 'makerJti' | 'makerIat'> {
  return {
    ...(claims.jti !== undefined ? { makerJti: claims.jti } : {}),
    ...(claims.iat !== undefined ? { makerIat: claims.iat } : {}),
  };
}

/**
 * True when the token that made `pairing` is revoked: by its `jti`, or by a revocation of its user's
 * tokens issued up to a moment at or after its issue (a pairing with no recorded issue time counts as
 * issued at 0, so any revocation of the user voids it). Read from the store itself, not this node's
 * cached copy of the list: a revocation recorded a moment ago on another node voids the pairing here
 * at once, before the revocation channel's message arrives. Only a claim with a live code gets this
 * far, so the read is not something a guesser can multiply.
 */
export async function makerRevoked(revocations: RevocationStore, pairing: PairingRecord): Promise<boolean> {
  const list = await revocations.list();
  return isRevoked(list, {
    sub: pairing.userId,
    ...(pairing.makerJti !== undefined ? { jti: pairing.makerJti } : {}),
    iat: pairing.makerIat ?? 0,
  });
}
