import { describe, expect, it } from 'vitest';
import {
  DeadlineSweeper,
  IDLE_SWEEP_FACTOR,
  idlePauseCapMs,
  type Sweepable,
} from '../src/core/deadline-sweeper.js';

/** A sweep that reports the next count of due items it is given (0 once they run out). */
function sweepOf(counts: number[], calls: string[], name: string): Sweepable {
  return {
    sweep: async () => {
      calls.push(name);
      return counts.shift() ?? 0;
    },
  };
}

describe('DeadlineSweeper: one round for every deadline kind, pausing longer while nothing is due', () => {
  it('runs every sweep each round and adds up what they found due', async () => {
    const calls: string[] = [];
    const sweeper = new DeadlineSweeper(
      [sweepOf([2], calls, 'service'), sweepOf([1], calls, 'escalation')],
      500,
    );
    expect(await sweeper.round()).toBe(3);
    expect(calls.sort()).toEqual(['escalation', 'service']);
  });

  it('doubles the pause after each empty round up to the cap, and is back at the interval once something is due', async () => {
    const counts = [0, 0, 0, 0, 0, 0, 4, 0];
    const sweeper = new DeadlineSweeper([sweepOf(counts, [], 'service')], 500);
    expect(sweeper.nextPauseMs).toBe(500);
    const pauses: number[] = [];
    for (let i = 0; i < 8; i++) {
      await sweeper.round();
      pauses.push(sweeper.nextPauseMs);
    }
    const cap = 500 * IDLE_SWEEP_FACTOR;
    expect(pauses).toEqual([1000, 2000, cap, cap, cap, cap, 500, 1000]);
  });

  it('stretches a long interval no further: the idle cap is 8 × the interval, at most 4 s, never below the interval', () => {
    expect(idlePauseCapMs(500)).toBe(500 * IDLE_SWEEP_FACTOR);
    expect(idlePauseCapMs(1000)).toBe(4000);
    expect(idlePauseCapMs(10_000)).toBe(10_000);
  });
});
