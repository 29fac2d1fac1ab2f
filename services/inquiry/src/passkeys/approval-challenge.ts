import { createHash } from 'node:crypto';
import type { Inquiry } from '@hitl/protocol';
import { jsonDigest } from '../audit/audit-records.js';

/**
 * The challenge of a passkey approval: SHA-256 over the inquiry id, the digest of the exact arguments
 * being approved and a single-use nonce. The authenticator signs it, so the assertion answers for that
 * inquiry and those arguments only; the nonce (kept in the store, taken once) makes it single use.
 */
export function approvalChallenge(
  inquiryId: string,
  argumentsDigest: string,
  nonce: string,
): Uint8Array<ArrayBuffer> {
  const digest = createHash('sha256')
    .update(`hitl-approval\n${inquiryId}\n${argumentsDigest}\n${nonce}`, 'utf8')
    .digest();
  return new Uint8Array(digest);
}

/** The digest of what an approve approves: the edited arguments when given, else the action's as asked. */
export function approvedArgumentsDigest(
  inquiry: Pick<Inquiry, 'action'>,
  edited?: Record<string, unknown>,
): string {
  return jsonDigest(edited ?? inquiry.action?.arguments ?? {});
}

/** The challenge a WebAuthn response's client data carries (base64url), or undefined when unreadable. */
export function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof data.challenge === 'string' ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

/** The relying party: `HITL_PUBLIC_URL`'s host name is the RP ID and its origin the expected origin. */
export interface RelyingParty {
  rpID: string;
  origin: string;
  rpName: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return { rpID: url.hostname, origin: url.origin, rpName: 'HITL' };
}
