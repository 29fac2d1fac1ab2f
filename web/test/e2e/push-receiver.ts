import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';

/**
 * A stand-in for the browser's push service (FCM, Mozilla, Apple), on loopback: headless Chromium
 * here has no push service to subscribe with, so the test makes the subscription's keys itself (as a
 * browser does), the node pushes to this server like to any push service, and the server decrypts
 * each message (RFC 8291 aes128gcm) with those keys. The test then hands the plaintext to the real
 * service worker through the DevTools protocol, which is what the browser does on a real push.
 */
/** A fresh VAPID key pair as the node takes it from the environment (no state folder needed). */
export function vapidEnv(): Record<string, string> {
  const ecdh = createECDH('prime256v1');
  const publicKey = ecdh.generateKeys().toString('base64url');
  return {
    HITL_VAPID_PUBLIC_KEY: publicKey,
    HITL_VAPID_PRIVATE_KEY: ecdh.getPrivateKey().toString('base64url'),
    HITL_VAPID_SUBJECT: 'mailto:ops@example.com',
  };
}

export interface ReceivedPush {
  headers: IncomingHttpHeaders;
  /** The decrypted payload. */
  text: string;
  json: unknown;
}

export interface PushReceiver {
  /** The subscription a browser would hand to the page (`PushSubscription.toJSON()`). */
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  received: ReceivedPush[];
  /** Resolves with the first push (seen or to come) for which `match` is true. */
  next(match: (push: ReceivedPush) => boolean, timeoutMs?: number): Promise<ReceivedPush>;
  close(): Promise<void>;
}

/** RFC 8291 §3.4 / RFC 8188: one aes128gcm record, decrypted with the user agent's keys. */
export function decryptAes128gcm(
  body: Buffer,
  uaPrivate: Buffer,
  uaPublic: Buffer,
  authSecret: Buffer,
): string {
  const salt = body.subarray(0, 16);
  const idLength = body.readUInt8(20);
  const asPublic = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(uaPrivate);
  const shared = ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // Padding: the last record ends in 0x02, then zeros.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('not the last record of an aes128gcm message');
  return padded.subarray(0, end).toString('utf8');
}

export async function startPushReceiver(): Promise<PushReceiver> {
  const ecdh = createECDH('prime256v1');
  const uaPublic = ecdh.generateKeys();
  const uaPrivate = ecdh.getPrivateKey();
  const authSecret = randomBytes(16);
  const received: ReceivedPush[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const text = decryptAes128gcm(Buffer.concat(chunks), uaPrivate, uaPublic, authSecret);
        received.push({ headers: req.headers, text, json: JSON.parse(text) });
        res.writeHead(201).end();
      } catch (error) {
        res.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    subscription: {
      endpoint: `http://127.0.0.1:${port}/push/${randomBytes(8).toString('hex')}`,
      keys: { p256dh: uaPublic.toString('base64url'), auth: authSecret.toString('base64url') },
    },
    received,
    next: (match, timeoutMs = 30_000) =>
      vi.waitFor(
        () => {
          const found = received.find(match);
          if (!found) throw new Error(`no matching push in ${timeoutMs} ms (got ${received.length})`);
          return found;
        },
        { timeout: timeoutMs, interval: 50 },
      ),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The node's push client keeps connections alive; they would hold `close` for their timeout.
        server.closeAllConnections();
      }),
  };
}
