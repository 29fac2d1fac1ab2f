import { randomBytes } from 'node:crypto';
import {
  HitlError,
  type Inquiry,
  isAddressedTo,
  MAX_PASSKEYS_PER_USER,
  type Passkey,
  type WebAuthnAssertion,
  type WebAuthnRegistration,
} from '@hitl/protocol';
import type { PasskeyStore } from '@hitl/store';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Logger } from 'pino';
import type { Clock } from '../core/ports.js';
import {
  approvalChallenge,
  approvedArgumentsDigest,
  challengeOf,
  type RelyingParty,
} from './approval-challenge.js';

export interface PasskeyServiceDeps {
  store: PasskeyStore;
  clock: Clock;
  logger: Logger;
  /** Read at each use: the public URL's port may be known only once the node listens. */
  relyingParty(): RelyingParty;
}

/**
 * The key algorithms a passkey may use: Ed25519, ES256, RS256 (COSE -8, -7, -257). Pinned, not the
 * library's default, which on Node 24 adds ML-DSA-44 (-48): Node 24 verifies it only behind an
 * experimental Web Crypto API and Node 20 not at all, so a key made through one node could fail on
 * another node of the same deployment.
 */
const KEY_ALGORITHMS = [-8, -7, -257];

/** How long a registration's challenge lives. */
const REGISTRATION_TTL_MS = 5 * 60_000;

/** A refusal of a passkey approval: 403 `passkey_required`, the inquiry stays pending. */
function refused(message: string): HitlError {
  return new HitlError('passkey_required', message);
}

/**
 * Passkeys (WebAuthn, `@simplewebauthn/server`): registration, and approvals bound to one inquiry and
 * the exact arguments approved. Stateless on the node: every challenge lives in the store until it is
 * taken once, so any node verifies an assertion.
 */
export class PasskeyService {
  constructor(private readonly deps: PasskeyServiceDeps) {}

  async registrationOptions(
    userId: string,
    userName?: string,
  ): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { rpID, rpName } = this.deps.relyingParty();
    const existing = await this.deps.store.list(userId);
    const options = await generateRegistrationOptions({
      rpName,
      rpID,
      userName: userName ?? userId,
      userID: new TextEncoder().encode(userId),
      attestationType: 'none',
      supportedAlgorithmIDs: KEY_ALGORITHMS,
      excludeCredentials: existing.map((key) => ({ id: key.id })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
    await this.deps.store.putChallenge({
      challenge: options.challenge,
      userId,
      purpose: 'register',
      expiresAt: this.deps.clock.now() + REGISTRATION_TTL_MS,
    });
    return options;
  }

  /** @throws HitlError `invalid_input` naming what does not hold */
  async register(
    userId: string,
    response: WebAuthnRegistration,
    deviceName?: string,
  ): Promise<{ id: string }> {
    const now = this.deps.clock.now();
    const challenge = challengeOf(response.response.clientDataJSON);
    const issued = challenge ? await this.deps.store.takeChallenge(challenge, now) : null;
    if (issued?.purpose !== 'register' || issued.userId !== userId) {
      throw new HitlError(
        'invalid_input',
        'response: its challenge was not issued to you for a registration (or was used, or expired)',
      );
    }
    if ((await this.deps.store.list(userId)).length >= MAX_PASSKEYS_PER_USER) {
      throw new HitlError('invalid_input', `you have ${MAX_PASSKEYS_PER_USER} passkeys; delete one first`);
    }
    const { rpID, origin } = this.deps.relyingParty();
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: issued.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: true,
      });
    } catch (error) {
      throw new HitlError('invalid_input', `response: ${(error as Error).message}`);
    }
    if (!verified.verified) throw new HitlError('invalid_input', 'response: the registration did not verify');
    const { credential } = verified.registrationInfo;
    const added = await this.deps.store.add({
      id: credential.id,
      userId,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      ...(credential.transports ? { transports: credential.transports } : {}),
      ...(deviceName ? { deviceName } : {}),
      createdAt: now,
    });
    if (added === 'exists')
      throw new HitlError('invalid_input', 'response: this passkey is registered already');
    return { id: credential.id };
  }

  async list(userId: string): Promise<Passkey[]> {
    return (await this.deps.store.list(userId)).map(({ id, deviceName, createdAt, lastUsedAt }) => ({
      id,
      createdAt,
      ...(deviceName ? { deviceName } : {}),
      ...(lastUsedAt !== undefined ? { lastUsedAt } : {}),
    }));
  }

  remove(userId: string, id: string): Promise<boolean> {
    return this.deps.store.remove(userId, id);
  }

  /**
   * Authentication options for approving `inquiry` with `edited` arguments (or the action's): a fresh
   * nonce kept until the inquiry ends, in a challenge bound to the inquiry and the arguments' digest.
   * @throws HitlError `not_found` (not addressed to the user), `invalid_input` (no passkey approval pending, no passkeys)
   */
  async approvalOptions(
    inquiry: Inquiry | null,
    userId: string,
    edited?: Record<string, unknown>,
  ): Promise<PublicKeyCredentialRequestOptionsJSON> {
    if (!inquiry || !isAddressedTo(inquiry, userId)) throw new HitlError('not_found', 'no such inquiry');
    if (!inquiry.requirePasskey || inquiry.status !== 'pending') {
      throw new HitlError('invalid_input', 'this inquiry is not a pending passkey approval');
    }
    const keys = await this.deps.store.list(userId);
    if (keys.length === 0)
      throw new HitlError('invalid_input', 'you have no passkey: register one on this device first');
    const nonce = randomBytes(16).toString('base64url');
    const argumentsDigest = approvedArgumentsDigest(inquiry, edited);
    const challenge = approvalChallenge(inquiry.inquiryId, argumentsDigest, nonce);
    const options = await generateAuthenticationOptions({
      rpID: this.deps.relyingParty().rpID,
      challenge,
      allowCredentials: keys.map((key) => ({
        id: key.id,
        ...(key.transports ? { transports: key.transports } : {}),
      })),
      userVerification: 'required',
    });
    await this.deps.store.putChallenge({
      challenge: options.challenge,
      userId,
      purpose: 'approve',
      inquiryId: inquiry.inquiryId,
      argumentsDigest,
      nonce,
      expiresAt: inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt,
    });
    return options;
  }

  /**
   * Checks a passkey approval: the challenge was issued by this service to this user for this inquiry
   * and these arguments, and is taken now (once); the assertion is signed by one of the user's passkeys
   * for this relying party and origin, with user verification; its counter goes up.
   * @returns the passkey's credential id
   * @throws HitlError `passkey_required` saying what does not hold (logged)
   */
  async verifyApproval(
    inquiry: Inquiry,
    userId: string,
    assertion: WebAuthnAssertion,
    edited?: Record<string, unknown>,
  ): Promise<string> {
    const log = this.deps.logger.child({ inquiryId: inquiry.inquiryId, userId, passkey: assertion.id });
    const fail = (message: string, level: 'info' | 'warn' = 'info'): never => {
      log[level]({ reason: message }, 'passkey approval refused');
      throw refused(`passkey approval refused: ${message}`);
    };
    const now = this.deps.clock.now();
    const challenge = challengeOf(assertion.response.clientDataJSON);
    const issued = challenge ? await this.deps.store.takeChallenge(challenge, now) : null;
    if (issued?.purpose !== 'approve')
      return fail('its challenge was not issued by this service, was used already, or expired', 'warn');
    if (issued.userId !== userId || issued.inquiryId !== inquiry.inquiryId)
      return fail('its challenge was issued for another inquiry', 'warn');
    const digest = approvedArgumentsDigest(inquiry, edited);
    if (issued.argumentsDigest !== digest)
      return fail('it was made for other arguments than the ones approved');
    const expected = Buffer.from(approvalChallenge(inquiry.inquiryId, digest, issued.nonce ?? '')).toString(
      'base64url',
    );
    if (expected !== challenge)
      return fail('its challenge does not bind this inquiry and these arguments', 'warn');
    const key = await this.deps.store.get(userId, assertion.id);
    if (!key) return fail('it is not signed by one of your passkeys');
    const { rpID, origin } = this.deps.relyingParty();
    let newCounter: number;
    try {
      const verified = await verifyAuthenticationResponse({
        response: assertion,
        expectedChallenge: expected,
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential: { id: key.id, publicKey: Buffer.from(key.publicKey, 'base64url'), counter: key.counter },
        requireUserVerification: true,
      });
      if (!verified.verified) return fail('the signature does not verify', 'warn');
      newCounter = verified.authenticationInfo.newCounter;
    } catch (error) {
      const message = (error as Error).message;
      // A counter at or below the stored one: a cloned authenticator (or a replayed assertion).
      return fail(/counter/i.test(message) ? `possible cloned authenticator: ${message}` : message, 'warn');
    }
    const use = await this.deps.store.use(userId, key.id, newCounter, now);
    if (use !== 'used')
      return fail(`possible cloned authenticator: the counter ${newCounter} did not go up`, 'warn');
    return key.id;
  }
}
