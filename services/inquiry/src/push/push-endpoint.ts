import { isIP } from 'node:net';

/** Literal hosts that name this machine or a private network: a push service is never there. */
function isLocalHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const version = isIP(host);
  if (version === 4) {
    const [a = 0, b = 0] = host.split('.').map(Number);
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254)
    );
  }
  if (version === 6) {
    return (
      host === '::1' ||
      host === '::' ||
      /^f[cd]/.test(host) ||
      /^fe[89ab]/.test(host) ||
      host.startsWith('::ffff:')
    );
  }
  return false;
}

/**
 * Why a push endpoint is refused, or undefined when it is fine (DESIGN §6.3): it must be `https:`;
 * a host listed in `HITL_PUSH_ALLOW_HTTP_HOSTS` (by name, or name:port) may also use `http:`. A
 * literal loopback or private address, or `localhost`, is refused unless listed: the node would
 * otherwise POST into the operator's own network for whoever holds a device token.
 */
export function endpointProblem(endpoint: string, allowHttpHosts: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint: expected an absolute URL';
  }
  const listed =
    allowHttpHosts.includes(url.hostname.toLowerCase()) || allowHttpHosts.includes(url.host.toLowerCase());
  if (url.username || url.password) return 'endpoint: must not carry a user name or password';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && listed)) {
    return `endpoint: must be an https: URL (http: only for hosts in HITL_PUSH_ALLOW_HTTP_HOSTS)`;
  }
  if (!listed && isLocalHost(url.hostname)) {
    return `endpoint: ${url.hostname} is a local or private address; list it in HITL_PUSH_ALLOW_HTTP_HOSTS to allow it`;
  }
  return undefined;
}
