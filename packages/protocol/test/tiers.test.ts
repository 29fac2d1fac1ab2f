import { describe, expect, it } from 'vitest';
import { DEFAULT_TIERS, MAX_SERVICE_TIER_MS, TimeoutTiersSchema, tierOrderProblems } from '../src/index.js';
import { expectAccepted, expectNamesField, rejectionOf } from './zod-message.js';

describe('tierOrderProblems', () => {
  it('finds nothing wrong with device < service < client', () => {
    expect(tierOrderProblems({ deviceMs: 10_000, serviceMs: 20_000, clientMs: 30_000 })).toEqual([]);
    expect(tierOrderProblems(DEFAULT_TIERS)).toEqual([]);
  });

  it('flags a device tier at or above the service tier', () => {
    const expected = [{ lower: 'deviceMs', upper: 'serviceMs' }];
    expect(tierOrderProblems({ deviceMs: 40_000, serviceMs: 20_000, clientMs: 60_000 })).toEqual(expected);
    expect(tierOrderProblems({ deviceMs: 20_000, serviceMs: 20_000, clientMs: 60_000 })).toEqual(expected);
  });

  it('flags a service tier at or above the client tier', () => {
    const expected = [{ lower: 'serviceMs', upper: 'clientMs' }];
    expect(tierOrderProblems({ deviceMs: 10_000, serviceMs: 90_000, clientMs: 60_000 })).toEqual(expected);
    expect(tierOrderProblems({ deviceMs: 10_000, serviceMs: 60_000, clientMs: 60_000 })).toEqual(expected);
  });

  it('lists both problems when all three are equal', () => {
    expect(tierOrderProblems({ deviceMs: 5000, serviceMs: 5000, clientMs: 5000 })).toEqual([
      { lower: 'deviceMs', upper: 'serviceMs' },
      { lower: 'serviceMs', upper: 'clientMs' },
    ]);
  });
});

describe('TimeoutTiersSchema', () => {
  it('accepts the defaults', () => {
    expect(expectAccepted(TimeoutTiersSchema, DEFAULT_TIERS)).toEqual(DEFAULT_TIERS);
  });

  it('rejects a tier below one second, naming it', () => {
    expectNamesField(rejectionOf(TimeoutTiersSchema, { ...DEFAULT_TIERS, deviceMs: 999 }), 'deviceMs');
  });

  it('rejects a service tier over 24 hours', () => {
    const message = rejectionOf(TimeoutTiersSchema, { ...DEFAULT_TIERS, serviceMs: MAX_SERVICE_TIER_MS + 1 });
    expectNamesField(message, 'serviceMs');
  });
});
