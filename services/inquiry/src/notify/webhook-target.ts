import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/*
 * No SSRF into the operator's network (DESIGN §6.3): a webhook may not reach loopback, private,
 * link-local, shared or reserved addresses unless its host is listed in `HITL_WEBHOOK_ALLOW_HOSTS`.
 * The check runs on the address the connection is actually made to (a lookup hook), so a name that
 * resolves to a public address when saved and a private one later (DNS rebinding) is still refused.
 */

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

/** True when `address` (an IP literal) is in a range a webhook may not reach by default. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = address.toLowerCase().match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/);
  if (mapped?.[1]) return BLOCKED.check(mapped[1], 'ipv4');
  return BLOCKED.check(address, 'ipv6');
}

/** Refused before any byte is sent: the error a delivery attempt records. */
export class BlockedTargetError extends Error {
  override readonly name = 'BlockedTargetError';
}

/**
 * A `lookup` for `http.request` that refuses private targets unless the URL's host is allowed.
 * `allowHosts` are lower-case host names or IP literals.
 */
export function guardedLookup(host: string, allowHosts: readonly string[]): LookupFunction | undefined {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (allowHosts.includes(name)) return undefined;
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as unknown as { address: string; family: number }[];
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (bad) {
        return callback(
          new BlockedTargetError(
            `${hostname} resolves to ${bad.address}, a private address (HITL_WEBHOOK_ALLOW_HOSTS)`,
          ),
          '',
          4,
        );
      }
      const first = list[0];
      if (!first) return callback(new BlockedTargetError(`${hostname} has no address`), '', 4);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: unknown) => void)(null, list);
      callback(null, first.address, first.family);
    });
  };
}
