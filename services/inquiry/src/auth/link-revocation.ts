import type { LinkClaims } from '@hitl/auth';
import type { RevocableToken } from '@hitl/store';

/**
 * The revocation-list entry that withdraws every answer link of one inquiry: kept with the revoked
 * token ids (no token's `jti` holds a colon), so it reaches every node by the same feed and is dropped
 * once the inquiry's links have expired anyway.
 */
export const inquiryLinksEntry = (inquiryId: string): string => `links:${inquiryId}`;

/**
 * Whether a genuine answer link is withdrawn: its own id revoked (`hitl token revoke --jti`), its
 * person revoked after it was issued (`hitl token revoke --user`), or its inquiry's links revoked by
 * ops (`POST /api/inquiries/:id/links/revoke`).
 */
export function linkRevoked(isRevoked: (token: RevocableToken) => boolean, claims: LinkClaims): boolean {
  const sub = claims.userId;
  return (
    isRevoked({ sub, jti: claims.linkId, iat: claims.issuedAt }) ||
    isRevoked({ sub, jti: inquiryLinksEntry(claims.inquiryId), iat: claims.issuedAt })
  );
}
