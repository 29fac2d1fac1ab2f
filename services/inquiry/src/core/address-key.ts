import ipaddr from 'ipaddr.js';

/**
 * The budget key of a peer address: one per host, as far as the address can tell. An IPv4 address
 * (also written IPv4-mapped, `::ffff:a.b.c.d`) is its own key; an IPv6 address stands for its /64,
 * the block one host or one home network is handed, so a guesser cannot draw a fresh budget from
 * each of its addresses. A string that is no address (`unknown`) is its own key.
 *
 * @example
 * addressBudgetKey('2001:db8:1:2::9'); // '2001:db8:1:2::/64'
 */
export function addressBudgetKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const [a = 0, b = 0, c = 0, d = 0] = (ip as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([a, b, c, d, 0, 0, 0, 0]).toString()}/64`;
}
