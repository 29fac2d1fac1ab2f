import { createECDH } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** The application server's VAPID identity (RFC 8292): a P-256 key pair and a contact. */
export interface VapidKeys {
  /** Uncompressed P-256 public key (65 bytes), base64url: what browsers subscribe with. */
  publicKey: string;
  /** The 32-byte private key, base64url. */
  privateKey: string;
  /** `mailto:` or `https:` contact the push services may use (the JWT's `sub`). */
  subject: string;
}

/**
 * The subject a generated key pair starts with. Apple's push service refuses it (403 BadJwtToken:
 * it wants a contact it can resolve), so the node warns until it is replaced in the keys file.
 */
export const PLACEHOLDER_VAPID_SUBJECT = 'mailto:hitl@localhost';

export const VapidKeysSchema = z.object({
  publicKey: z.string().min(1),
  privateKey: z.string().min(1),
  subject: z.string().min(1),
});

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * What is wrong with a key pair, field by field (empty when nothing): key lengths, a public key
 * that is not the private key's, a subject that is not a `mailto:` or `https:` URL.
 */
export function vapidProblems(keys: VapidKeys): { field: keyof VapidKeys; message: string }[] {
  const problems: { field: keyof VapidKeys; message: string }[] = [];
  const bytes = (text: string) => (BASE64URL.test(text) ? Buffer.from(text, 'base64url') : undefined);
  const publicKey = bytes(keys.publicKey);
  const privateKey = bytes(keys.privateKey);
  if (publicKey?.length !== 65 || publicKey[0] !== 4) {
    problems.push({
      field: 'publicKey',
      message: 'expected an uncompressed P-256 key: 65 bytes of base64url',
    });
  }
  if (privateKey?.length !== 32) {
    problems.push({ field: 'privateKey', message: 'expected 32 bytes of base64url' });
  }
  if (problems.length === 0 && privateKey && publicKey) {
    try {
      const ecdh = createECDH('prime256v1');
      ecdh.setPrivateKey(privateKey);
      if (!ecdh.getPublicKey().equals(publicKey)) {
        problems.push({ field: 'publicKey', message: 'is not the public key of the private key given' });
      }
    } catch {
      problems.push({ field: 'privateKey', message: 'is not a valid P-256 private key' });
    }
  }
  let scheme = '';
  try {
    scheme = new URL(keys.subject).protocol;
  } catch {
    // Not a URL: reported below.
  }
  if (scheme !== 'mailto:' && scheme !== 'https:') {
    problems.push({
      field: 'subject',
      message: 'expected a mailto: or https: URL (a contact for the push services)',
    });
  }
  return problems;
}

/** True for a subject Apple's push service is known to refuse (a local or reserved host). */
export function isUnreachableSubject(subject: string): boolean {
  const host = subject.startsWith('mailto:')
    ? (subject.split('@').at(-1) ?? '')
    : (() => {
        try {
          return new URL(subject).hostname;
        } catch {
          return '';
        }
      })();
  return /(^|\.)(localhost|local|invalid|test|example)$/i.test(host) || !host.includes('.');
}

/** Where a node without shared keys keeps its generated pair. */
export function vapidKeysPath(stateDir: string): string {
  return join(stateDir, 'vapid.json');
}

/** Writes a new pair, 0600, only if no file is there (`wx`: never through a file or link that appeared). */
export async function writeVapidFile(path: string, keys: VapidKeys): Promise<void> {
  await writeFile(path, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
}
