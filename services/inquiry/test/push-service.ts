import { createECDH, createPublicKey, type ECDH, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenOn } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
// @ts-expect-error http_ece ships no types; web-push encrypts with it, and a receiver decrypts with it.
import ece from 'http_ece';
import { expect } from 'vitest';

/** One POST the test push service received. */
export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

/** A reply the push service gives: a status and headers. */
export interface PushReply {
  status: number;
  headers?: Record<string, string>;
  /** Answer only after this long (a slow or stuck push service). */
  delayMs?: number;
  /** Never answer (the request stays open until the sender gives up or the service closes). */
  stuck?: boolean;
}

/**
 * A push service on loopback (plain HTTP, allowed through HITL_PUSH_ALLOW_HTTP_HOSTS): records every
 * POST and answers from `replies` in order (201 once they run out).
 */
export async function startPushService() {
  const received: ReceivedPush[] = [];
  const replies: PushReply[] = [];
  let open = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      });
      const reply = replies.shift() ?? { status: 201 };
      open++;
      res.once('close', () => open--);
      if (reply.stuck) return;
      setTimeout(() => res.writeHead(reply.status, reply.headers).end(), reply.delayMs ?? 0);
    });
  });
  const { port } = await listenOn(server, 0, '127.0.0.1');
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    received,
    replies,
    /** Pushes received and not yet over (neither answered nor given up by the sender). */
    get open(): number {
      return open;
    },
    /** Waits until `count` pushes have arrived in all (at most `timeoutMs`), and returns the first `count`. */
    async waitFor(count: number, timeoutMs = 15_000): Promise<ReceivedPush[]> {
      await eventually(async () => expect(received.length).toBeGreaterThanOrEqual(count), timeoutMs);
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What a browser makes when it subscribes: a P-256 key pair and a 16-byte auth secret. */
export interface BrowserKeys {
  ecdh: ECDH;
  auth: Buffer;
  /** The `keys` of `PushSubscription.toJSON()`. */
  json: { p256dh: string; auth: string };
}

export function browserKeys(): BrowserKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    json: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
  };
}

/** Decrypts an aes128gcm push body (RFC 8291) with the browser's own keys and parses the JSON. */
export function decryptPush(body: Buffer, keys: BrowserKeys): unknown {
  const plain: Buffer = ece.decrypt(body, {
    version: 'aes128gcm',
    privateKey: keys.ecdh,
    authSecret: keys.auth,
  });
  return JSON.parse(plain.toString('utf8'));
}

/**
 * Checks `Authorization: vapid t=<jwt>, k=<key>` (RFC 8292): the key is `publicKey`, the JWT's ES256
 * signature verifies with it, `aud` is `audience` and `exp` is within 24 h. Returns the JWT's claims.
 */
export function verifyVapid(
  authorization: string | undefined,
  publicKey: string,
  audience: string,
): { aud: string; exp: number; sub: string } {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!match?.[1] || !match[2]) throw new Error(`not a vapid Authorization header: ${authorization}`);
  if (match[2] !== publicKey) throw new Error('k= is not the key from /api/push/key');
  const [header, payload, signature] = match[1].split('.') as [string, string, string];
  const raw = Buffer.from(publicKey, 'base64url');
  const key = createPublicKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33, 65).toString('base64url'),
    },
  });
  const signed = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!signed) throw new Error('the VAPID JWT signature does not verify with the public key');
  const alg = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg: string }).alg;
  if (alg !== 'ES256') throw new Error(`alg ${alg}`);
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
    aud: string;
    exp: number;
    sub: string;
  };
  if (claims.aud !== audience) throw new Error(`aud ${claims.aud}, expected ${audience}`);
  const now = Date.now() / 1000;
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600))
    throw new Error(`exp ${claims.exp} not within 24 h`);
  return claims;
}
