import { describe, expect, it } from 'vitest';
import {
  applyNew,
  applyResolved,
  applySync,
  applyUpdated,
  ENDED_MEMORY,
  emptyPendingState,
  newestFirst,
  type PendingState,
} from '../src/pending.js';
import { deviceInquiry } from './inquiries.js';

const SERVER = 1_700_000_000_000;
const ids = (state: PendingState) => newestFirst(state).map((i) => i.inquiryId);

describe('pending-inquiry state', () => {
  it('sync replaces the whole list and reports only the inquiries it had not held', () => {
    const a = deviceInquiry('01A', SERVER);
    const b = deviceInquiry('01B', SERVER + 1);
    const c = deviceInquiry('01C', SERVER + 2);
    const first = applySync(emptyPendingState, { inquiries: [a, b], serverTime: SERVER + 5 }, SERVER + 5);
    expect(ids(first.state)).toEqual(['01B', '01A']);
    expect(first.added.map((i) => i.inquiryId)).toEqual(['01A', '01B']);

    // On reconnect: A ended while we were away, C is new.
    const second = applySync(first.state, { inquiries: [b, c], serverTime: SERVER + 9 }, SERVER + 9);
    expect(ids(second.state)).toEqual(['01C', '01B']);
    expect(second.added.map((i) => i.inquiryId)).toEqual(['01C']);
  });

  it('an inquiry that arrived live while sync pages came in survives the sync that was read before it', () => {
    const a = deviceInquiry('01A', SERVER);
    const live = deviceInquiry('01L', SERVER + 3);
    const gone = deviceInquiry('01G', SERVER + 1);
    let state = applyNew(emptyPendingState, gone, SERVER).state;
    state = applyNew(state, live, SERVER).state;
    const synced = applySync(state, { inquiries: [a] }, SERVER + 5, new Set(['01L']));
    expect(ids(synced.state)).toEqual(['01L', '01A']);
  });

  it('a duplicate inquiry:new (or a replayed one) is ignored', () => {
    const a = deviceInquiry('01A', SERVER);
    const once = applyNew(emptyPendingState, a, SERVER);
    expect(once.added?.inquiryId).toBe('01A');
    const twice = applyNew(once.state, { ...a, question: 'changed' }, SERVER + 10);
    expect(twice.added).toBeUndefined();
    expect(twice.state).toBe(once.state);
    expect(newestFirst(twice.state)[0]?.question).toBe('question 01A');
  });

  it('an ended inquiry never comes back through a late new or a stale sync', () => {
    const a = deviceInquiry('01A', SERVER);
    let state = applyNew(emptyPendingState, a, SERVER).state;
    const resolved = applyResolved(state, { inquiryId: '01A' });
    expect(resolved.removed?.inquiryId).toBe('01A');
    state = resolved.state;
    expect(ids(state)).toEqual([]);
    expect(applyNew(state, a, SERVER).added).toBeUndefined();
    expect(ids(applySync(state, { inquiries: [a], serverTime: SERVER }, SERVER).state)).toEqual([]);
    // A second resolved event for it changes nothing.
    expect(applyResolved(state, { inquiryId: '01A' }).state).toBe(state);
  });

  it('inquiry:updated merges into a held inquiry and ignores unknown ones', () => {
    const a = deviceInquiry('01A', SERVER);
    const state = applyNew(emptyPendingState, a, SERVER).state;
    const updated = applyUpdated(
      state,
      { ...a, suggestedAnswer: 'blue', serverTime: SERVER + 100 },
      SERVER + 100,
    );
    expect(newestFirst(updated)[0]?.suggestedAnswer).toBe('blue');
    expect(applyUpdated(updated, deviceInquiry('01Z', SERVER), SERVER)).toBe(updated);
  });

  it('translates the device deadline to the local clock, correcting for skew', () => {
    // The server clock runs 5 s ahead of this device.
    const a = deviceInquiry('01A', SERVER);
    const held = applyNew(emptyPendingState, a, SERVER - 5000).added;
    expect(held?.skewMs).toBe(5000);
    expect(held?.localDeviceAt).toBe(SERVER - 5000 + 30_000);
    // ...or 3 s behind.
    const behind = applyNew(emptyPendingState, a, SERVER + 3000).added;
    expect(behind?.localDeviceAt).toBe(SERVER + 3000 + 30_000);
  });

  it('newest first, ties broken by id', () => {
    let state = emptyPendingState;
    for (const [id, at] of [
      ['01B', 5],
      ['01A', 5],
      ['01C', 1],
      ['01D', 9],
    ] as const) {
      state = applyNew(state, deviceInquiry(id, SERVER + at), SERVER).state;
    }
    expect(ids(state)).toEqual(['01D', '01B', '01A', '01C']);
  });

  it('remembers a bounded number of ended ids', () => {
    let state = emptyPendingState;
    for (let i = 0; i < ENDED_MEMORY + 10; i++) state = applyResolved(state, { inquiryId: `id-${i}` }).state;
    expect(state.ended).toHaveLength(ENDED_MEMORY);
    expect(state.ended[0]).toBe('id-10');
  });
});
