import { createWriteStream, writeFileSync } from 'node:fs';
import { Cdp } from '../env/cdp.js';
import type { TaskContext } from '../env/worker-protocol.js';

export type ProbeCommand =
  | { op: 'gc' }
  | { op: 'snapshot'; file: string }
  | { op: 'profile-start' }
  | { op: 'profile-stop'; file: string }
  | { op: 'stop' };

/**
 * Runs in its own process (with --experimental-websocket) and talks to a node's inspector for the
 * runner: `gc` → `process.memoryUsage()` after a full GC; `snapshot` → a .heapsnapshot file;
 * `profile-start` / `profile-stop` → a .cpuprofile of just that window.
 */
export async function probe(p: { port: number }, ctx: TaskContext): Promise<object> {
  const cdp = await Cdp.connect(p.port);
  for (;;) {
    const command = await ctx.signal<ProbeCommand>('cmd');
    if (command.op === 'stop') break;
    if (command.op === 'gc') ctx.emit('reply', await cdp.memoryAfterGc());
    else if (command.op === 'profile-start') ctx.emit('reply', await cdp.startProfile());
    else if (command.op === 'profile-stop') {
      writeFileSync(command.file, JSON.stringify(await cdp.stopProfile()));
      ctx.emit('reply', { file: command.file });
    } else {
      const out = createWriteStream(command.file);
      await cdp.heapSnapshot((chunk) => out.write(chunk));
      await new Promise((resolve) => out.end(resolve));
      ctx.emit('reply', { file: command.file });
    }
  }
  cdp.close();
  return {};
}
