import type { ProbeCommand } from '../load/probe.js';
import { freePort } from './limits.js';
import { startWorker, type WorkerHandle } from './workers.js';

/** A node's inspector, driven from a probe process. */
export interface Probe {
  ask<T = unknown>(command: ProbeCommand): Promise<T>;
  stop(): void;
}

/** A free port for `--inspect=127.0.0.1:<port>` and the flag itself. */
export async function inspectFlag(): Promise<{ port: number; flag: string }> {
  const port = await freePort();
  return { port, flag: `--inspect=127.0.0.1:${port}` };
}

/** Starts a probe process attached to the inspector on `port`. */
export function startProbe(port: number): Probe {
  const worker: WorkerHandle<object> = startWorker(
    'probe',
    { port },
    { execArgv: ['--experimental-websocket'] },
  );
  let queue = Promise.resolve<unknown>(undefined);
  return {
    ask: <T>(command: ProbeCommand) => {
      const answer = queue.then(() => {
        worker.signal('cmd', command);
        return worker.next<T>('reply');
      });
      queue = answer.catch(() => undefined);
      return answer;
    },
    stop: () => {
      worker.signal('cmd', { op: 'stop' } satisfies ProbeCommand);
      setTimeout(() => worker.kill(), 2000).unref();
    },
  };
}
