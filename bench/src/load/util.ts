import { performance } from 'node:perf_hooks';

/** Monotonic milliseconds (fractional), comparable within one process. */
export const now = (): number => performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects with `what` if `promise` has not settled within `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `work(i)` for i in [0, count) with at most `limit` running at once. */
export async function pool(count: number, limit: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
}

/** Waits until `check()` is true, polling every `everyMs`; throws after `ms`. */
export async function until(
  check: () => boolean,
  ms: number,
  what: string | (() => string),
  everyMs = 20,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`${typeof what === 'string' ? what : what()}: not reached within ${ms} ms`);
    }
    await sleep(everyMs);
  }
}

/** A promise with its resolve function, for events that complete an entry later. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Counts correctness failures by kind and keeps the first few messages for the report. */
export class Faults {
  readonly counts: Record<string, number> = {};
  readonly samples: string[] = [];

  add(kind: string, detail: string): void {
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    if (this.samples.length < 5) this.samples.push(`${kind}: ${detail}`);
  }

  get total(): number {
    return Object.values(this.counts).reduce((a, b) => a + b, 0);
  }
}
