import { describe, expect, it } from 'vitest';
import { type HeldRetry, RetryBudget } from '../src/notify/webhook-retry-budget.js';

/** Issue 34, finding 6: the bookkeeping that bounds the bodies webhook retries keep. */

type Entry = HeldRetry & { running?: boolean };
const entry = (id: string, bytes: number, hook = 'https://a.example/hook', userId = 'u1'): Entry => ({
  id,
  hook,
  userId,
  bytes,
});
const notRunning = (e: Entry) => !e.running;

describe('RetryBudget', () => {
  it('drops the oldest retries of the same user to stay within the per-user cap', () => {
    const budget = new RetryBudget<Entry>({ perWebhookBytes: 1000, perUserBytes: 300 });
    for (const id of ['a', 'b', 'c']) expect(budget.admit(entry(id, 100), notRunning).held).toBe(true);
    const admitted = budget.admit(entry('d', 150), notRunning);
    expect(admitted).toMatchObject({ held: true });
    expect(admitted.dropped.map((e) => e.id)).toEqual(['a', 'b']);
    expect(budget.userBytes('u1')).toBe(250);
    expect(budget.bytes).toBe(250);
    expect(budget.get('a')).toBeUndefined();
  });

  it('drops the oldest of the same webhook across users for the per-webhook cap, never another webhook', () => {
    const budget = new RetryBudget<Entry>({ perWebhookBytes: 300, perUserBytes: 300 });
    budget.admit(entry('other-hook', 200, 'https://b.example/hook', 'u1'), notRunning);
    budget.admit(entry('x', 200, 'https://a.example/hook', 'u2'), notRunning);
    const admitted = budget.admit(entry('y', 200, 'https://a.example/hook', 'u3'), notRunning);
    expect(admitted.dropped.map((e) => e.id)).toEqual(['x']);
    expect(budget.hookBytes('https://a.example/hook')).toBe(200);
    expect(budget.hookBytes('https://b.example/hook')).toBe(200);
    expect(budget.bytes).toBe(400);
  });

  it('never drops a retry under way; holds nothing when only those could make room', () => {
    const budget = new RetryBudget<Entry>({ perWebhookBytes: 1000, perUserBytes: 200 });
    const busy = { ...entry('busy', 150), running: true };
    budget.admit(busy, notRunning);
    const refused = budget.admit(entry('new', 100), notRunning);
    expect(refused).toEqual({ held: false, dropped: [] });
    expect(budget.bytes).toBe(150);
  });

  it('does not hold a body over a cap on its own, and drops nothing for it', () => {
    const budget = new RetryBudget<Entry>({ perWebhookBytes: 1000, perUserBytes: 200 });
    budget.admit(entry('small', 50), notRunning);
    expect(budget.admit(entry('huge', 201), notRunning)).toEqual({ held: false, dropped: [] });
    expect(budget.bytes).toBe(50);
  });

  it('releases what ends, and admits the same delivery once', () => {
    const budget = new RetryBudget<Entry>({ perWebhookBytes: 1000, perUserBytes: 1000 });
    const a = entry('a', 100);
    budget.admit(a, notRunning);
    expect(budget.admit(a, notRunning)).toEqual({ held: true, dropped: [] });
    expect(budget.bytes).toBe(100);
    budget.release('a');
    budget.release('a');
    expect(budget.bytes).toBe(0);
    expect(budget.userBytes('u1')).toBe(0);
  });
});
