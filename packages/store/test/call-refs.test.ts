import { describe, expect, it } from 'vitest';
import { CallRefs } from '../src/call-refs.js';

describe('CallRefs', () => {
  it('recalls a reference until its ttl, then not', () => {
    let now = 1_000;
    const refs = new CallRefs(() => now);
    refs.remember('a', 'inq-1', 500);
    expect(refs.recall('a')).toBe('inq-1');
    now += 499;
    expect(refs.recall('a')).toBe('inq-1');
    now += 1;
    expect(refs.recall('a')).toBeNull();
    expect(refs.recall('b')).toBeNull();
  });

  it('drops expired references at most once a second, not on every remember', () => {
    let now = 1_000;
    const refs = new CallRefs(() => now);
    for (let i = 0; i < 100; i++) refs.remember(`k${i}`, `inq-${i}`, 10);
    now += 20;
    // Within the second since the last prune: the expired 100 are still held (and not recalled).
    refs.remember('fresh', 'inq-x', 10_000);
    expect(refs.size).toBe(101);
    expect(refs.recall('k1')).toBeNull();
    now += 1000;
    refs.remember('later', 'inq-y', 10_000);
    expect(refs.size).toBe(2);
    expect(refs.recall('fresh')).toBe('inq-x');
  });
});
