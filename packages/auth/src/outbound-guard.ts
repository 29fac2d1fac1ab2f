import { lookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * One address guard for every target a node sends to on someone else's say-so (webhooks from the
 * directory, push endpoints from a device token, later Slack): no request into the operator's own
 * network. Only public unicast addresses pass (`ipaddr.js` names the ranges: loopback, private,
 * link-local, shared / carrier-grade NAT, reserved, benchmarking, multicast, broadcast, unique- and
 * site-local, documentation ...); an IPv4-mapped or NAT64 (64:ff9b::/96) IPv6 address is judged by
 * the IPv4 address inside it. The check runs twice: on the URL's host (a literal address, or a name
 * of this machine like `localhost`), and on every address its name resolves to when connecting
 * (`guardedLookup`), so a name that resolves, or later rebinds, to a private address is refused.
 */

/** The one IPv6 block the internet routes (2000::/3); anything outside it is local or special. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
/** NAT64's well-known prefix: the last 32 bits are the IPv4 address a gateway connects to. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/** Why `address` (an IP literal, without brackets) is no public unicast address, or undefined. */
export function addressProblem(address: string): string | undefined {
  if (!ipaddr.isValid(address) || isIP(address) === 0) return `${address} is not an IP address`;
  const ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv4') {
    const range = ip.range();
    return range === 'unicast' ? undefined : `${address} is not a public address (${range})`;
  }
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) {
    const inner = addressProblem(v6.toIPv4Address().toString());
    return inner && `${address} maps to an IPv4 address: ${inner}`;
  }
  if (v6.match(NAT64)) {
    const inner = addressProblem(ipaddr.fromByteArray(v6.toByteArray().slice(12)).toString());
    return inner && `${address} is NAT64 of an IPv4 address: ${inner}`;
  }
  const range = v6.range();
  if (range !== 'unicast') return `${address} is not a public address (${range})`;
  return v6.match(GLOBAL_UNICAST) ? undefined : `${address} is not a public address (not in 2000::/3)`;
}

/** `host` as a URL gives it: brackets off, lower case, trailing dots off (`localhost.` is localhost). */
function bareHost(host: string): string {
  return host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.+$/, '');
}

/**
 * Why a URL's host may not be sent to, or undefined when it may (so far: a name is checked again,
 * address by address, on connect). Refused: a literal address that is not public unicast, and
 * `localhost` or any `*.localhost` name (RFC 6761), with or without a trailing dot.
 */
export function hostProblem(hostname: string): string | undefined {
  const host = bareHost(hostname);
  if (isIP(host) !== 0) return addressProblem(host);
  if (host === '' || host === 'localhost' || host.endsWith('.localhost')) {
    return `${hostname} names this machine`;
  }
  return undefined;
}

/**
 * Whether an allow-list (`HITL_WEBHOOK_ALLOW_HOSTS`, `HITL_PUSH_ALLOW_HTTP_HOSTS`: lower-case host
 * names, IP literals, or `name:port`) lists this URL's host: a listed host skips the guard.
 */
export function isListedHost(url: URL, allowHosts: readonly string[]): boolean {
  const name = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return allowHosts.includes(name) || allowHosts.includes(url.host.toLowerCase());
}

/** A target refused before any byte was sent: final, a retry would be refused the same way. */
export class BlockedTargetError extends Error {
  override readonly name = 'BlockedTargetError';
  readonly code = 'ERR_BLOCKED_TARGET';
}

type Resolve = (
  hostname: string,
  callback: (error: Error | null, addresses: { address: string; family: number }[]) => void,
) => void;

const resolveAll: Resolve = (hostname, callback) =>
  lookup(hostname, { all: true, verbatim: true }, (error, addresses) => callback(error, addresses ?? []));

/**
 * A `lookup` for `http.request` / `net.connect` that resolves every address of the name and refuses
 * the connection (a {@link BlockedTargetError}) when any of them is not public: the address actually
 * connected to is one that passed. `allowName` names the env var that would allow it, for the message.
 */
export function guardedLookup(allowName: string, resolve: Resolve = resolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
      const list = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
      for (const { address } of addresses) {
        const problem = addressProblem(address);
        if (problem) {
          const refused = new BlockedTargetError(
            `${hostname} resolves to ${address}: ${problem}; not sent (list the host in ${allowName} to allow it)`,
          );
          return callback(refused, '', 4);
        }
      }
      const first = list[0];
      if (!first) return callback(new BlockedTargetError(`${hostname} has no address`), '', 4);
      if (options.all) {
        return (callback as unknown as (e: null, all: typeof list) => void)(null, list);
      }
      callback(null, first.address, first.family);
    });
  };
}
