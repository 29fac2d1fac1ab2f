import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromWorker, ToWorker } from './worker-protocol.js';

const WORKER = fileURLToPath(new URL('./worker-main.js', import.meta.url));

/** A forked load generator running one task. */
export interface WorkerHandle<R> {
  pid: number;
  child: ChildProcess;
  /** Resolves with the data of the worker's next `name` event. */
  next<T = unknown>(name: string): Promise<T>;
  signal(name: string, data?: unknown): void;
  /** The task's result; rejects if it failed or the process died. */
  result: Promise<R>;
  kill(): void;
}

export interface WorkerOptions {
  execArgv?: string[];
  /** The task must finish within this many ms, or the worker is killed and `result` rejects. */
  timeoutMs?: number;
}

/** Forks `dist/env/worker-main.js` and starts `task` with `params`. */
export function startWorker<R>(task: string, params: unknown, options: WorkerOptions = {}): WorkerHandle<R> {
  const child = fork(WORKER, [], {
    execArgv: options.execArgv ?? [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const events = new Map<string, unknown[]>();
  const waiters = new Map<string, ((data: unknown) => void)[]>();
  let stderrHint = '';
  const result = new Promise<R>((resolve, reject) => {
    const timer = setTimeout(
      () => {
        child.kill('SIGKILL');
        reject(new Error(`${task} worker timed out after ${options.timeoutMs} ms`));
      },
      options.timeoutMs ?? 30 * 60_000,
    );
    child.on('message', (message: FromWorker) => {
      if (message.type === 'event') {
        const waiter = waiters.get(message.name)?.shift();
        if (waiter) waiter(message.data ?? null);
        else events.set(message.name, [...(events.get(message.name) ?? []), message.data ?? null]);
      } else if (message.type === 'done') {
        clearTimeout(timer);
        resolve(message.result as R);
      } else {
        clearTimeout(timer);
        stderrHint = message.message;
        reject(new Error(`${task} worker failed: ${message.message}`));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${task} worker exited (${code ?? signal}) ${stderrHint}`));
    });
  });
  result.catch(() => undefined);
  child.send({ type: 'run', task, params } satisfies ToWorker);
  return {
    pid: child.pid as number,
    child,
    next: <T>(name: string) =>
      new Promise<T>((resolve, reject) => {
        const first = events.get(name)?.shift();
        if (first !== undefined) return resolve(first as T);
        waiters.set(name, [...(waiters.get(name) ?? []), resolve as (data: unknown) => void]);
        result.then(
          () => reject(new Error(`${task} worker finished without a ${name} event`)),
          (error: unknown) => reject(error),
        );
      }),
    signal: (name, data) => {
      if (child.connected) child.send({ type: 'signal', name, data } satisfies ToWorker);
    },
    result,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** Every worker's `name` event, once all have sent it. */
export function allNext<T>(workers: WorkerHandle<unknown>[], name: string): Promise<T[]> {
  return Promise.all(workers.map((w) => w.next<T>(name)));
}
