/** Runner → worker: start a task, or a named signal during it. */
export type ToWorker =
  | { type: 'run'; task: string; params: unknown }
  | { type: 'signal'; name: string; data?: unknown };

/** Worker → runner: a named event during the task, its result, or its failure. */
export type FromWorker =
  | { type: 'event'; name: string; data?: unknown }
  | { type: 'done'; result: unknown }
  | { type: 'error'; message: string };

/** What a load task gets besides its parameters: a line to the runner. */
export interface TaskContext {
  /** Tells the runner something happened (e.g. `parked`, `ready`). */
  emit(name: string, data?: unknown): void;
  /** Waits for the runner's signal `name` (queued if it came first). */
  signal<T = unknown>(name: string): Promise<T>;
}

export type Task = (params: never, ctx: TaskContext) => Promise<unknown>;
