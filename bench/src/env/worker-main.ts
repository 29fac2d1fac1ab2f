/**
 * A load generator (or bare baseline server) process. The runner forks it, sends one `run` message
 * naming the task, exchanges signals, and gets the result back. Exits when the runner goes away.
 */
import type { FromWorker, Task, TaskContext, ToWorker } from './worker-protocol.js';

const TASKS: Record<string, () => Promise<Task>> = {
  'baseline-server': async () => (await import('../load/baseline-server.js')).baselineServer as Task,
  baseline: async () => (await import('../load/baseline.js')).baselineLoad as Task,
  resume: async () => (await import('../load/resume.js')).resumeLoad as Task,
  fanout: async () => (await import('../load/fanout.js')).fanoutLoad as Task,
  throughput: async () => (await import('../load/throughput.js')).throughputLoad as Task,
  'open-loop': async () => (await import('../load/open-loop.js')).openLoopLoad as Task,
  capacity: async () => (await import('../load/capacity.js')).capacityLoad as Task,
  'proxy-capacity': async () => (await import('../load/proxy-capacity.js')).proxyCapacityLoad as Task,
  'scale-out': async () => (await import('../load/scale-out.js')).scaleOutLoad as Task,
  races: async () => (await import('../load/races.js')).racesLoad as Task,
  paths: async () => (await import('../load/paths.js')).pathsLoad as Task,
  probe: async () => (await import('../load/probe.js')).probe as Task,
  'variant-server': async () => (await import('../load/variant-server.js')).variantServer as Task,
};

const send = (message: FromWorker) =>
  new Promise<void>((resolve) => {
    if (!process.connected) return resolve();
    process.send?.(message, undefined, {}, () => resolve());
  });

const queued = new Map<string, unknown[]>();
const waiting = new Map<string, (data: unknown) => void>();
const ctx: TaskContext = {
  emit: (name, data) => void send({ type: 'event', name, data }),
  signal: <T>(name: string) =>
    new Promise<T>((resolve) => {
      const first = queued.get(name)?.shift();
      if (first !== undefined) return resolve(first as T);
      waiting.set(name, resolve as (data: unknown) => void);
    }),
};

process.on('message', (message: ToWorker) => {
  if (message.type === 'signal') {
    const resolve = waiting.get(message.name);
    waiting.delete(message.name);
    if (resolve) resolve(message.data ?? null);
    else queued.set(message.name, [...(queued.get(message.name) ?? []), message.data ?? null]);
    return;
  }
  void run(message.task, message.params);
});
process.on('disconnect', () => process.exit(1));

async function run(name: string, params: unknown): Promise<void> {
  try {
    const load = TASKS[name];
    if (!load) throw new Error(`unknown task ${name}`);
    const task = await load();
    const result = await task(params as never, ctx);
    await send({ type: 'done', result });
    process.exit(0);
  } catch (error) {
    await send({
      type: 'error',
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    process.exit(1);
  }
}
