import { describe, expect, it } from 'vitest';
import { KeyedQueue } from '../src/slack/keyed-queue.js';

/** The Slack channel's work queue: bounded, one key's jobs in order, others side by side. */

/** A job that runs until `release()` and notes when it starts. */
function gate(log: string[], name: string) {
  let release: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    job: async () => {
      log.push(name);
      await done;
    },
    release: () => release(),
  };
}

describe('KeyedQueue', () => {
  it('runs one key’s jobs in order and other keys beside them, at most `concurrency` at once', async () => {
    const log: string[] = [];
    const queue = new KeyedQueue({ concurrency: 2, maxWaiting: 10 }, () => undefined);
    const a1 = gate(log, 'a1');
    const a2 = gate(log, 'a2');
    const b1 = gate(log, 'b1');
    const c1 = gate(log, 'c1');
    for (const [key, g] of [
      ['a', a1],
      ['a', a2],
      ['b', b1],
      ['c', c1],
    ] as const)
      queue.push(key, g.job);
    // Nothing runs in the caller's turn.
    expect(log).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['a1', 'b1']);
    expect(queue.size).toBe(4);
    a1.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['a1', 'b1', 'c1']);
    b1.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['a1', 'b1', 'c1', 'a2']);
    a2.release();
    c1.release();
    await queue.idle();
    expect(queue.size).toBe(0);
  });

  it('refuses past `maxWaiting`, reports a failed job, and drops what waits on close', async () => {
    const errors: unknown[] = [];
    const queue = new KeyedQueue({ concurrency: 1, maxWaiting: 3 }, (error) => errors.push(error));
    const log: string[] = [];
    const first = gate(log, 'first');
    expect(queue.push('x', first.job)).toBe(true);
    expect(queue.push('y', async () => Promise.reject(new Error('boom')))).toBe(true);
    expect(queue.push('z', async () => undefined)).toBe(true);
    expect(queue.push('w', async () => undefined)).toBe(false);
    first.release();
    await queue.idle();
    expect(errors).toEqual([new Error('boom')]);
    const held = gate(log, 'held');
    queue.push('x', held.job);
    await new Promise((resolve) => setImmediate(resolve));
    queue.push('x', async () => {
      log.push('never');
    });
    queue.close();
    expect(queue.push('v', async () => undefined)).toBe(false);
    held.release();
    await queue.idle();
    expect(log).toContain('held');
    expect(log).not.toContain('never');
  });
});
