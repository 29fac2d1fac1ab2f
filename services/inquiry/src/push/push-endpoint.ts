import { hostProblem, isListedHost } from '@hitl/auth';

/**
 * Why a push endpoint is refused, or undefined when it is fine: it must be `https:`;
 * a host listed in `HITL_PUSH_ALLOW_HTTP_HOSTS` (by name, or name:port) may also use `http:`. A
 * host the outbound guard of `@hitl/auth` refuses (a literal address that is not public unicast,
 * `localhost`) is refused unless listed: the node would otherwise POST into the operator's own network
 * for whoever holds a device token. A name is checked again, address by address, on every send.
 */
export function endpointProblem(endpoint: string, allowHttpHosts: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'endpoint: expected an absolute URL';
  }
  const listed = isListedHost(url, allowHttpHosts);
  if (url.username || url.password) return 'endpoint: must not carry a user name or password';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && listed)) {
    return `endpoint: must be an https: URL (http: only for hosts in HITL_PUSH_ALLOW_HTTP_HOSTS)`;
  }
  const problem = listed ? undefined : hostProblem(url.hostname);
  if (problem) {
    return `endpoint: ${problem}; list the host in HITL_PUSH_ALLOW_HTTP_HOSTS to allow it`;
  }
  return undefined;
}
