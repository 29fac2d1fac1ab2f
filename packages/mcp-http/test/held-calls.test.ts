import { describe, expect, it } from 'vitest';
import { HeldCalls } from '../src/held-calls.js';

/**
 * Issue 34 item 7 on the proxy: two agents on one token reusing a JSON-RPC id. No call overwrites
 * another; a cancel that names both cancels neither; a shutdown aborts both.
 */
describe("HeldCalls.run and cancel (the proxy's use): two calls under one key", () => {
  it('keeps both: a cancel is ambiguous and aborts neither; releaseAll aborts both', async () => {
    const calls = new HeldCalls(() => new AbortController());
    const signals: AbortSignal[] = [];
    const release: (() => void)[] = [];
    const runs = [1, 2].map(() =>
      calls.run('k', ({ signal }) => {
        signals.push(signal);
        return new Promise<void>((resolve) => release.push(resolve));
      }),
    );
    expect(calls.size).toBe(2);
    expect(calls.cancel('k', 'cancelled by the agent')).toBe('ambiguous');
    expect(signals.map((s) => s.aborted)).toEqual([false, false]);
    expect(calls.cancel('other', 'cancelled by the agent')).toBe('none');
    calls.releaseAll(new Error('proxy shutting down'));
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
    for (const done of release) done();
    await Promise.all(runs);
    expect(calls.size).toBe(0);
    // One call alone under its key is cancelled.
    const one = calls.run(
      'k',
      ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', resolve)),
    );
    expect(calls.cancel('k', 'cancelled by the agent')).toBe('cancelled');
    await one;
  });
});
