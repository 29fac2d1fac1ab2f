import { createConnection } from 'node:net';
import { Redis } from 'ioredis';

/** `INFO commandstats` so far: calls (e.g. `{ evalsha: 120, zadd: 30 }`) and Redis's own CPU time (µs) per command. */
export interface CommandStats {
  calls: Record<string, number>;
  /**
   * Microseconds Redis spent in each command. A script's time is counted under its `evalsha` /
   * `eval` / `fcall` entry, and the commands it called are counted again under their own names.
   */
  usec: Record<string, number>;
  /** Redis's process CPU time so far (`INFO cpu`: user + system, main thread and all), in µs. */
  cpuUsec: number;
}

/** The commands that run a script: their `usec` holds the script's inner calls too. */
export const SCRIPT_COMMANDS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);

/** `INFO commandstats` of the Redis at `url`. */
export async function commandStats(url: string): Promise<CommandStats> {
  const redis = new Redis(url);
  try {
    const info = await redis.info('commandstats');
    const cpu = await redis.info('cpu');
    const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(cpu)?.[1] ?? 0);
    const cpuUsec = Math.round(1e6 * (seconds('used_cpu_user') + seconds('used_cpu_sys')));
    const stats: CommandStats = { calls: {}, usec: {}, cpuUsec };
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
      stats.calls[match[1] as string] = Number(match[2]);
      stats.usec[match[1] as string] = Number(match[3]);
    }
    return stats;
  } finally {
    redis.disconnect();
  }
}

/** The sum of a counter map's values. */
export const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

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

/** What a `MONITOR` window saw: commands the clients sent, commands Redis ran (scripts' included). */
export interface MonitorCounts {
  /** Commands written by clients (one each on the wire; a script call is one). */
  sent: number;
  /** Everything Redis ran: `sent` plus what the scripts called. */
  run: number;
  /**
   * Resolutions: one per resolved inquiry, so one per full cycle. Counted as the resolving script's
   * `HSET` of the hash's `resolveOp` field (a message is no longer sent for every resolution: the
   * resolving node's own waiters wake without one).
   */
  resolutions: number;
  /** Sent commands by name, e.g. `{ evalsha: 40, xadd: 20 }`. */
  sentByName: Record<string, number>;
}

/** One MONITOR line: `+<time> [<db> <source>] "<command>" "<arg>" ...`. */
const MONITOR_LINE = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"/;

/** The hash field only the write that ends an inquiry sets (end-pending.lua). */
const RESOLVE_FIELD = '"resolveOp"';

/**
 * Watches `MONITOR` for `ms` and counts client commands apart from those scripts ran (Redis shows
 * those with the source `lua`). `INFO commandstats` counts both together. MONITOR slows Redis a
 * little: use a short window. A plain socket (ioredis' monitor mode loses track of its queue under load).
 */
export async function monitorCounts(url: string, ms: number): Promise<MonitorCounts> {
  const { hostname, port } = new URL(url);
  const counts: MonitorCounts = { sent: 0, run: 0, resolutions: 0, sentByName: {} };
  const socket = createConnection({ host: hostname, port: Number(port) });
  socket.on('error', () => {});
  let rest = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\r\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const match = MONITOR_LINE.exec(line);
      if (!match) continue;
      const [, source, command] = match;
      const name = String(command).toLowerCase();
      counts.run += 1;
      if (source === 'lua' && name === 'hset' && line.includes(RESOLVE_FIELD)) counts.resolutions += 1;
      if (source === 'lua') continue;
      counts.sent += 1;
      counts.sentByName[name] = (counts.sentByName[name] ?? 0) + 1;
    }
  });
  socket.write('MONITOR\r\n');
  await new Promise((resolve) => setTimeout(resolve, ms));
  socket.destroy();
  return counts;
}
