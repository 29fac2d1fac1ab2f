import { describe, expect, it, vi } from 'vitest';
import { MemoryInquiryStore } from '../src/index.js';
import { runStoreContract, sampleInquiry } from '../src/testing/index.js';

runStoreContract('memory', async (options) => {
  let offset = 0;
  const store = new MemoryInquiryStore({ ...options, now: () => Date.now() + offset });
  return {
    store,
    advanceClock: (ms) => {
      offset += ms;
    },
    cleanup: () => store.close(),
  };
});

describe('MemoryInquiryStore', () => {
  it('leaves no timer or abort listener behind once a wait ends', async () => {
    vi.useFakeTimers();
    try {
      const store = new MemoryInquiryStore();
      const { inquiryId } = sampleInquiry();
      await store.create(sampleInquiry({ inquiryId }));
      const controller = new AbortController();
      const add = vi.spyOn(controller.signal, 'addEventListener');
      const remove = vi.spyOn(controller.signal, 'removeEventListener');
      const waiting = store.waitForResolution(inquiryId, {
        signal: controller.signal,
        deadline: Date.now() + 60_000,
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(vi.getTimerCount()).toBe(1);
      await store.resolve(inquiryId, {
        status: 'cancelled',
        resolvedBy: { kind: 'agent' },
        resolvedAt: Date.now(),
      });
      expect(await waiting).toMatchObject({ status: 'cancelled' });
      expect(vi.getTimerCount()).toBe(0);
      // The listener the wait added (a function or a listener object) is the one it removed.
      const [[event, listener]] = add.mock.calls as [[string, unknown]];
      expect(event).toBe('abort');
      expect(listener).toBeTruthy();
      expect(remove).toHaveBeenCalledWith('abort', listener);
    } finally {
      vi.useRealTimers();
    }
  });

  it('returns copies, so a caller mutating a result cannot change the store', async () => {
    const store = new MemoryInquiryStore();
    const input = sampleInquiry();
    const created = await store.create(input);
    if (created.kind !== 'ok') throw new Error('not created');
    created.inquiry.status = 'answered';
    input.question = 'changed';
    expect(await store.get(input.inquiryId)).toMatchObject({ status: 'pending', question: 'Which size?' });
  });
});
