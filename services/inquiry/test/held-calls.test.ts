import { HeldCalls } from '@hitl/mcp-http';
import { describe, expect, it } from 'vitest';
import { within } from '../src/core/ports.js';
import { ManualClock } from './manual-clock.js';

const settledNow = async (promise: Promise<unknown>) => {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await new Promise((r) => setImmediate(r));
  return settled;
};

describe('HeldCalls.whenEmpty', () => {
  it('resolves at once when nothing is held, and when the last held call is released', async () => {
    const calls = new HeldCalls();
    expect(await settledNow(calls.whenEmpty())).toBe(true);
    const a = calls.hold('a', 'inq-a');
    const b = calls.hold('b', 'inq-b');
    const empty = calls.whenEmpty();
    calls.release('a', a);
    expect(await settledNow(empty)).toBe(false);
    // A stale release (the call is not held under that key) changes nothing.
    const c = calls.hold('c', 'inq-c');
    calls.release('b', c);
    expect(await settledNow(empty)).toBe(false);
    calls.release('b', b);
    calls.release('c', c);
    expect(await settledNow(empty)).toBe(true);
  });
});

describe('HeldCalls: two calls under one key (two agents on one token reusing a request id)', () => {
  it('keeps both: get names both, each release frees only its own, a drain aborts both', async () => {
    const calls = new HeldCalls();
    const first = calls.hold('k', 'inq-1');
    const second = calls.hold('k', 'inq-2');
    const third = calls.hold('k', 'inq-3');
    expect(calls.size).toBe(3);
    expect(calls.get('k').map((c) => c.inquiryId)).toEqual(['inq-1', 'inq-2', 'inq-3']);
    calls.release('k', second);
    expect(calls.get('k').map((c) => c.inquiryId)).toEqual(['inq-1', 'inq-3']);
    const empty = calls.whenEmpty();
    calls.releaseAll('node shutting down');
    expect([first, second, third].map((c) => c.controller.signal.aborted)).toEqual([true, false, true]);
    calls.release('k', first);
    expect(calls.get('k').map((c) => c.inquiryId)).toEqual(['inq-3']);
    expect(await settledNow(empty)).toBe(false);
    calls.release('k', third);
    expect(calls.get('k')).toEqual([]);
    expect(calls.size).toBe(0);
    expect(await settledNow(empty)).toBe(true);
  });
});

describe('within: the drain’s bounded wait, on the node’s clock', () => {
  it('ends when the work settles, clearing its timer', async () => {
    const clock = new ManualClock();
    const calls = new HeldCalls();
    const call = calls.hold('a', 'inq-a');
    const waited = within(clock, 5000, calls.whenEmpty());
    expect(clock.pending).toBe(1);
    calls.release('a', call);
    expect(await settledNow(waited)).toBe(true);
    expect(clock.pending).toBe(0);
  });

  it('ends when the clock passes the limit, even though the work never settles', async () => {
    const clock = new ManualClock();
    const waited = within(clock, 5000, new Promise(() => undefined));
    clock.advance(4999);
    expect(await settledNow(waited)).toBe(false);
    clock.advance(1);
    expect(await settledNow(waited)).toBe(true);
  });
});
