const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return LOOPBACK_HOSTS.has(name) || name.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** The host name of a `Host` header value, without its port (`[::1]:8787` → `[::1]`). */
function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  return host.split(':')[0] ?? '';
}

/** Names beyond loopback a door answers to (`HITL_ALLOWED_HOSTS`, `HITL_ALLOWED_ORIGINS`), lower case. */
export interface HostPolicy {
  allowedHosts: string[];
  allowedOrigins: string[];
}

/**
 * DNS-rebinding defence, one rule for every door (the node's HTTP and Socket.IO,
 * the approval proxy, `hitl decide`): why a request's Host / Origin is refused, or `null` when
 * both are fine. Loopback names pass on any port; anything else must be listed.
 *
 * @example
 * hostOriginProblem({ allowedHosts: [], allowedOrigins: [] }, 'evil.example', undefined)
 * // → 'Host "evil.example" is not allowed (set HITL_ALLOWED_HOSTS)'
 */
export function hostOriginProblem(
  policy: HostPolicy,
  host: string | undefined,
  origin: string | undefined,
): string | null {
  if (!host) return 'missing Host header';
  const name = hostName(host.toLowerCase());
  if (
    !isLoopbackName(name) &&
    !policy.allowedHosts.includes(name) &&
    !policy.allowedHosts.includes(host.toLowerCase())
  ) {
    return `Host "${host}" is not allowed (set HITL_ALLOWED_HOSTS)`;
  }
  if (origin === undefined) return null;
  const lowered = origin.toLowerCase();
  if (policy.allowedOrigins.includes(lowered)) return null;
  try {
    const url = new URL(lowered);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackName(url.hostname)) return null;
  } catch {
    // not a URL: refused below
  }
  return `Origin "${origin}" is not allowed (set HITL_ALLOWED_ORIGINS)`;
}
