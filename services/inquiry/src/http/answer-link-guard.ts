import { type HostPolicy, hostOriginProblem } from '@hitl/auth';
import { HitlError } from '@hitl/protocol';
import type { MiddlewareHandler } from 'hono';

/**
 * The Host / Origin rule of an answer link's own page and form, or `null` when the request passes.
 * Host: as on every door (DNS rebinding). Origin, which browsers send with the form's POST:
 * - absent, or one the policy allows (loopback, `HITL_ALLOWED_ORIGINS`): as on every door;
 * - the page's own origin (its host is the request's `Host`, which passed above): the form posting to
 *   itself, which the page's `Referrer-Policy: same-origin` lets the browser say;
 * - `null` only together with `Sec-Fetch-Site: same-origin` (a browser that withholds the origin
 *   anyway, e.g. under a stricter referrer setting of its own; browsers set that header, pages cannot);
 * - anything else, a foreign site's form included, is refused.
 * The link's path is its credential (no cookie rides along), so this keeps other sites' pages from
 * driving the form; it never widens any other door.
 */
export function linkOriginProblem(
  policy: HostPolicy,
  host: string | undefined,
  origin: string | undefined,
  fetchSite: string | undefined,
): string | null {
  const hostProblem = hostOriginProblem(policy, host, undefined);
  if (hostProblem || origin === undefined) return hostProblem;
  if (origin === 'null') {
    return fetchSite === 'same-origin'
      ? null
      : 'Origin "null" is accepted on an answer link only from its own page (Sec-Fetch-Site: same-origin)';
  }
  try {
    if (host && new URL(origin).host === host.toLowerCase()) return null;
  } catch {
    // not a URL: the policy below refuses it
  }
  return hostOriginProblem(policy, host, origin);
}

/** Refuses a link request {@link linkOriginProblem} refuses: 403, rendered as a page by the door. */
export function guardLinkOrigin(policy: HostPolicy): MiddlewareHandler {
  return async (c, next) => {
    const problem = linkOriginProblem(
      policy,
      c.req.header('host'),
      c.req.header('origin'),
      c.req.header('sec-fetch-site'),
    );
    if (problem) throw new HitlError('forbidden', problem);
    return next();
  };
}
