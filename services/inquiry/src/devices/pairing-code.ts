import { createHash, randomInt } from 'node:crypto';
import { PAIRING_ALPHABET, PAIRING_LIMITS } from '@hitl/protocol';

/** A fresh pairing code: each character drawn from the alphabet by `crypto.randomInt` (no modulo bias). */
export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < PAIRING_LIMITS.codeLength; i += 1) {
    code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  }
  return code;
}

/** What the store keys a pairing by: SHA-256 of the normalized code, hex. */
export function hashPairingCode(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}
