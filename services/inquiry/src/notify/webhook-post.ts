import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { BlockedTargetError, guardedLookup, isPrivateAddress } from './webhook-target.js';

/** What one POST got: an HTTP status, or an error before any status. */
export type PostOutcome = { status: number } | { error: string };

/** How long one attempt may take, headers and body. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** How much of a receiver's reply is read (and thrown away). */
const MAX_REPLY_BYTES = 64 * 1024;

/**
 * One webhook POST with the SSRF guard on the address it connects to; never follows redirects
 * (a 3xx is a failed attempt), reads at most 64 KB of the reply, and gives up after 10 s.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  allowHosts: readonly string[],
): Promise<PostOutcome> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = allowHosts.includes(host);
  if (!allowed && isIP(host) && isPrivateAddress(host)) {
    return Promise.resolve({
      error: new BlockedTargetError(`${host} is a private address (HITL_WEBHOOK_ALLOW_HOSTS)`).message,
    });
  }
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        lookup: guardedLookup(host, allowHosts),
        timeout: ATTEMPT_TIMEOUT_MS,
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_REPLY_BYTES) res.destroy();
        });
        res.on('close', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no reply within ${ATTEMPT_TIMEOUT_MS} ms`)));
    req.on('error', (error) => resolve({ error: error.message }));
    req.end(body);
  });
}
