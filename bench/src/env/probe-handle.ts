import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProbeCommand } from '../load/probe.js';
import { freePort } from './limits.js';
import { type NodeHandle, startNode } from './nodes.js';
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

/** Nodes started with their inspectors open, so a window of their run can be CPU-profiled. */
export interface ProfiledNodes {
  nodes: NodeHandle[];
  /** Starts sampling on every node (no-op when profiling is off). */
  start(): Promise<void>;
  /** Stops sampling and writes `<dir>/node-<i>.cpuprofile`; returns the folder (undefined when off). */
  stop(): Promise<string | undefined>;
}

/**
 * `count` nodes on `redisUrl` (without it: the embedded store `env` picks); with `profile`, each gets
 * an inspector and a probe process.
 */
export async function startProfiledNodes(
  count: number,
  redisUrl: string | undefined,
  profile: boolean,
  cleanup: { add(step: () => unknown): void },
  env: Record<string, string> = {},
): Promise<ProfiledNodes> {
  const inspect = profile ? await Promise.all(Array.from({ length: count }, () => inspectFlag())) : [];
  const nodes = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      startNode(i, { ...(redisUrl ? { redisUrl } : {}), env, execArgv: inspect[i] ? [inspect[i].flag] : [] }),
    ),
  );
  for (const node of nodes) cleanup.add(() => node.stop());
  const probes = inspect.map((i) => startProbe(i.port));
  for (const probe of probes) cleanup.add(() => probe.stop());
  const dir = profile ? mkdtempSync(join(tmpdir(), 'hitl-bench-cpuprof-')) : undefined;
  return {
    nodes,
    start: async () => {
      await Promise.all(probes.map((p) => p.ask({ op: 'profile-start' })));
    },
    stop: async () => {
      await Promise.all(
        probes.map((p, i) =>
          p.ask({ op: 'profile-stop', file: join(dir as string, `node-${i}.cpuprofile`) }),
        ),
      );
      return dir;
    },
  };
}
