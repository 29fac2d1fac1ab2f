import { Redis } from 'ioredis';

/** Calls per Redis command so far (`INFO commandstats`), e.g. `{ evalsha: 120, zadd: 30 }`. */
export async function commandCounts(url: string): Promise<Record<string, number>> {
  const redis = new Redis(url);
  try {
    const info = await redis.info('commandstats');
    const counts: Record<string, number> = {};
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
      counts[match[1] as string] = Number(match[2]);
    return counts;
  } finally {
    redis.disconnect();
  }
}

/** `after − before` per unit (e.g. per cycle), biggest first, as `cmd:n.n` joined by commas. */
export function perUnit(
  before: Record<string, number>,
  after: Record<string, number>,
  units: number,
): string {
  return Object.entries(after)
    .map(([cmd, n]) => [cmd, (n - (before[cmd] ?? 0)) / Math.max(1, units)] as const)
    .filter(([, n]) => n >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([cmd, n]) => `${cmd}:${n.toFixed(1)}`)
    .join(',');
}
