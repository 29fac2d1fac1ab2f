import { outboundPost } from '@hitl/auth';
import type { VapidKeys } from '@hitl/runtime';
import type { PushSubscriptionRecord } from '@hitl/store';
import webpush from 'web-push';

/** What one POST to a push service came to. */
export type PushOutcome =
  | { kind: 'delivered'; status: number }
  /** 404 / 410: the subscription is gone for good (RFC 8030 §7.3); delete it. */
  | { kind: 'gone'; status: number }
  /** 429, 5xx or no answer: try again, after `afterMs` when the service said (`Retry-After`). */
  | { kind: 'retry'; status?: number; afterMs?: number; reason: string }
  /** Anything else (400, 403, 413, ...): trying again would not help. */
  | { kind: 'failed'; status: number; reason: string }
  /** The outbound guard refused the endpoint's address: nothing was sent, and never will be. */
  | { kind: 'blocked'; reason: string };

export interface PushMessage {
  /** The JSON payload, encrypted for the subscription (aes128gcm). */
  payload: string;
  /** Seconds the push service may keep it for an offline device. */
  ttl: number;
  topic: string;
  urgency: 'high';
}

/** A push service gets this long to answer one POST. */
const SEND_TIMEOUT_MS = 10_000;

/**
 * `Retry-After` (RFC 9110 §10.2.3: seconds or an HTTP date) in ms from `now`, or undefined when
 * absent or unreadable.
 */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * POSTs one push (RFC 8030) to the subscription's push service: web-push encrypts the payload
 * (RFC 8291 aes128gcm) and signs the VAPID JWT (RFC 8292) for the endpoint's origin; the request
 * goes through the outbound guard of `@hitl/auth` (the endpoint's host, then every address it
 * resolves to on connect, unless listed in `HITL_PUSH_ALLOW_HTTP_HOSTS`), with a timeout and without
 * following redirects.
 */
export async function sendPush(
  subscription: PushSubscriptionRecord,
  message: PushMessage,
  vapid: VapidKeys,
  now: number,
  allowHttpHosts: readonly string[],
): Promise<PushOutcome> {
  const details = webpush.generateRequestDetails(
    { endpoint: subscription.endpoint, keys: subscription.keys },
    message.payload,
    {
      vapidDetails: vapid,
      TTL: message.ttl,
      urgency: message.urgency,
      topic: message.topic,
      contentEncoding: 'aes128gcm',
    },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) {
    // The length of the body actually sent is set by the sender.
    if (name.toLowerCase() !== 'content-length') headers[name.toLowerCase()] = String(value);
  }
  const reply = await outboundPost(details.endpoint, {
    headers,
    body: details.body ?? '',
    allowHosts: allowHttpHosts,
    allowName: 'HITL_PUSH_ALLOW_HTTP_HOSTS',
    timeoutMs: SEND_TIMEOUT_MS,
    keepTextChars: 200,
  });
  if ('error' in reply) {
    return reply.blocked ? { kind: 'blocked', reason: reply.error } : { kind: 'retry', reason: reply.error };
  }
  const { status, text } = reply;
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 404 || status === 410) return { kind: 'gone', status };
  if (status === 429 || status >= 500) {
    const header = reply.headers['retry-after'];
    const afterMs = retryAfterMs(typeof header === 'string' ? header : null, now);
    return {
      kind: 'retry',
      status,
      ...(afterMs !== undefined ? { afterMs } : {}),
      reason: text || `HTTP ${status}`,
    };
  }
  return { kind: 'failed', status, reason: text || `HTTP ${status}` };
}
