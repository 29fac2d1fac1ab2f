import { createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign, verify } from 'node:crypto';
import type { Checkpoint, SignedCheckpoint } from '@hitl/protocol';
import { canonicalJson } from './chain-hash.js';

// PKCS#8 DER of an Ed25519 private key is this prefix and the 32-byte seed (RFC 8410).
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
// SPKI DER of an Ed25519 public key is this prefix and the 32 raw bytes.
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** An Ed25519 key pair that signs checkpoints; `publicKey` is the raw 32 bytes, base64url. */
export interface AuditKey {
  privateKey: KeyObject;
  publicKey: string;
}

/** A new key's seed (32 random bytes, base64url): what `HITL_AUDIT_KEY` holds. */
export function newAuditKeySeed(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The key pair of a seed: 32 bytes as base64url (or base64).
 * @throws Error when it is not 32 bytes
 */
export function auditKeyFromSeed(seed: string): AuditKey {
  const bytes = Buffer.from(seed.trim(), seed.includes('+') || seed.includes('/') ? 'base64' : 'base64url');
  if (bytes.length !== 32)
    throw new Error(`an audit key is 32 bytes (base64url); this one is ${bytes.length}`);
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, bytes]),
    format: 'der',
    type: 'pkcs8',
  });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { privateKey, publicKey: spki.subarray(SPKI_PREFIX.length).toString('base64url') };
}

/** The checkpoint with its Ed25519 signature over `JCS(checkpoint)`, as `GET /api/audit/checkpoint` returns it. */
export function signCheckpoint(key: AuditKey, checkpoint: Checkpoint): SignedCheckpoint {
  const signature = sign(null, Buffer.from(canonicalJson(checkpoint), 'utf8'), key.privateKey);
  return { checkpoint, signature: signature.toString('base64url'), publicKey: key.publicKey };
}

/** Whether `signature` is `publicKey`'s Ed25519 signature over `JCS(checkpoint)` (raw key, base64url). */
export function checkpointSignatureHolds(signed: SignedCheckpoint, publicKey = signed.publicKey): boolean {
  const raw = Buffer.from(publicKey, 'base64url');
  if (raw.length !== 32) return false;
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  return verify(
    null,
    Buffer.from(canonicalJson(signed.checkpoint), 'utf8'),
    key,
    Buffer.from(signed.signature, 'base64url'),
  );
}
