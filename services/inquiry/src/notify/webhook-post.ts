import { outboundPost } from '@hitl/auth';

/** What one POST got: an HTTP status, or an error before any status (`blocked`: refused, final). */
export type PostOutcome = { status: number } | { error: string; blocked?: true };

/**
 * One webhook POST through the outbound guard of `@hitl/auth` (no loopback, private or otherwise
 * non-public address, checked on the host and again on the address connected to, unless the host is
 * in `HITL_WEBHOOK_ALLOW_HOSTS`); never follows redirects (a 3xx is a failed attempt), reads at most
 * 64 KB of the reply, and gives up after 10 s idle.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  allowHosts: readonly string[],
): Promise<PostOutcome> {
  const reply = await outboundPost(url, {
    headers: { ...headers, 'content-type': 'application/json' },
    body,
    allowHosts,
    allowName: 'HITL_WEBHOOK_ALLOW_HOSTS',
  });
  return 'status' in reply ? { status: reply.status } : reply;
}
