import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type { WebAuthnAssertion, WebAuthnRegistration } from '@hitl/protocol';
import { type CborValue, encodeCbor } from './cbor.js';

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** Flags of authenticator data: user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

function counterBytes(counter: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter >>> 0);
  return bytes;
}

/** What a browser page is: the origin the client data names, and the RP ID the authenticator hashes. */
export interface PageContext {
  origin: string;
  rpId?: string;
}

/**
 * A platform authenticator in software: one ES256 (P-256) passkey, built from the WebAuthn formats
 * themselves (client data JSON, authenticator data, a `none` attestation object in CBOR, a COSE key,
 * an ECDSA signature over authenticator data and the client data's hash). It does what it is told:
 * tests make it sign for another origin or let its counter go backwards.
 *
 * @example
 * const authenticator = new SoftwareAuthenticator({ origin: 'http://localhost:8787' });
 * const registration = authenticator.register(await (await post('/api/passkeys/options')).json());
 */
export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  /** The signature counter the next assertion carries (then it goes up by one). */
  counter = 1;

  constructor(private readonly page: PageContext) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.publicJwk = { x: jwk.x as string, y: jwk.y as string };
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private rpIdHash(options: { rp?: { id?: string }; rpId?: string }): Buffer {
    return sha256(this.page.rpId ?? options.rpId ?? options.rp?.id ?? new URL(this.page.origin).hostname);
  }

  private clientData(type: string, challenge: string, origin = this.page.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** `navigator.credentials.create()` for the registration options JSON, as `RegistrationResponseJSON`. */
  register(options: { challenge: string; rp: { id?: string } }): WebAuthnRegistration {
    const cose = encodeCbor(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(this.publicJwk.x, 'base64url')],
        [-3, Buffer.from(this.publicJwk.y, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      this.rpIdHash(options),
      Buffer.from([UP | UV | AT]),
      counterBytes(0),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      this.credentialId,
      cose,
    ]);
    const attestationObject = encodeCbor(
      new Map<string, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, CborValue>()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /**
   * `navigator.credentials.get()` for the authentication options JSON, as `AuthenticationResponseJSON`;
   * `page` overrides where it is signed (a phishing page's origin).
   */
  assert(options: { challenge: string; rpId?: string }, page: Partial<PageContext> = {}): WebAuthnAssertion {
    const rpIdHash = page.rpId ? sha256(page.rpId) : this.rpIdHash(options);
    const authData = Buffer.concat([rpIdHash, Buffer.from([UP | UV]), counterBytes(this.counter++)]);
    const clientData = this.clientData('webauthn.get', options.challenge, page.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
