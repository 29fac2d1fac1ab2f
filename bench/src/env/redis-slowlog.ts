import { createHash } from 'node:crypto';
import { loadScriptDir } from '@hitl/store';
import { Redis } from 'ioredis';

/**
 * Redis's own time per command over a window, by name and, for `EVALSHA`, by script: the slow log
 * with a threshold of 0 µs records every command with its duration (Redis 7 logs a script's inner
 * calls too, under their own names, and their time is also inside the script's entry). Costs Redis a
 * little per command: only for the breakdown, not for the figure compared A/B.
 */
export class SlowlogWindow {
  private readonly redis: Redis;

  private constructor(url: string) {
    this.redis = new Redis(url);
  }

  /** Turns the slow log on for every command, emptied. */
  static async open(url: string): Promise<SlowlogWindow> {
    const window = new SlowlogWindow(url);
    await window.redis.config('SET', 'slowlog-max-len', '2000000');
    await window.redis.config('SET', 'slowlog-log-slower-than', '0');
    await window.redis.slowlog('RESET');
    return window;
  }

  /** Stops logging; returns the µs spent and the calls by command (`evalsha:<script>` for scripts). */
  async close(): Promise<Map<string, { usec: number; calls: number }>> {
    await this.redis.config('SET', 'slowlog-log-slower-than', '10000');
    const entries = (await this.redis.slowlog('GET', '-1')) as [number, number, number, string[]][];
    await this.redis.slowlog('RESET');
    this.redis.disconnect();
    const names = scriptNames();
    const usec = new Map<string, { usec: number; calls: number }>();
    for (const [, , duration, args] of entries) {
      const command = String(args[0]).toLowerCase();
      if (command === 'config' || command === 'slowlog') continue;
      const name = command === 'evalsha' ? `evalsha:${names.get(String(args[1])) ?? 'other'}` : command;
      const seen = usec.get(name) ?? { usec: 0, calls: 0 };
      usec.set(name, { usec: seen.usec + duration, calls: seen.calls + 1 });
    }
    return usec;
  }
}

/** µs and calls per unit by command, biggest first, as `name:<µs>/<calls>` joined by commas. */
export function usecPerUnit(usec: Map<string, { usec: number; calls: number }>, units: number): string {
  const per = Math.max(1, units);
  return [...usec]
    .filter(([, seen]) => seen.usec / per >= 0.05)
    .sort((a, b) => b[1].usec - a[1].usec)
    .map(([name, seen]) => `${name}:${(seen.usec / per).toFixed(1)}/${(seen.calls / per).toFixed(2)}`)
    .join(',');
}

/** SHA1 → command name of every script the store defines (as ioredis runs them by EVALSHA). */
function scriptNames(): Map<string, string> {
  const luaDir = new URL('./lua/', import.meta.resolve('@hitl/store'));
  const names = new Map<string, string>();
  for (const [dir, prefix] of [
    [luaDir, 'hitl'],
    [new URL('proxy/', luaDir), 'hitlProxy'],
    [new URL('./lua/', import.meta.resolve('@hitl/inquiry')), 'hitl'],
  ] as const) {
    for (const file of loadScriptDir(dir, prefix))
      names.set(createHash('sha1').update(file.lua).digest('hex'), file.command);
  }
  return names;
}
