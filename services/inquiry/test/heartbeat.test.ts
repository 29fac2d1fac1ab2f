import { describe, expect, it } from 'vitest';
import { startHeartbeat, untilBeat } from '../src/mcp/heartbeat.js';
import { ManualClock } from './manual-clock.js';

describe('the progress heartbeat of a held call', () => {
  it('beats every interval of the node’s clock until stopped', () => {
    const clock = new ManualClock();
    const sent: unknown[] = [];
    const extra = {
      _meta: { progressToken: 't' },
      sendNotification: async (n: { params?: unknown }) => void sent.push(n.params),
    };
    const heartbeat = startHeartbeat(extra, clock, 1000);
    clock.advance(999);
    expect(sent).toEqual([]);
    clock.advance(2001);
    expect(sent).toEqual([
      { progressToken: 't', progress: 1, message: 'waiting for the person to answer' },
      { progressToken: 't', progress: 2, message: 'waiting for the person to answer' },
      { progressToken: 't', progress: 3, message: 'waiting for the person to answer' },
    ]);
    heartbeat?.stop();
    expect(clock.pending).toBe(0);
    clock.advance(5000);
    expect(sent).toHaveLength(3);
  });

  it('does not start without a progress token', () => {
    const clock = new ManualClock();
    expect(startHeartbeat({ sendNotification: async () => undefined }, clock, 1000)).toBeUndefined();
    expect(clock.pending).toBe(0);
  });

  it('lines beats up on whole slots of the clock, so calls held a few ms apart beat on one tick', () => {
    const first = new ManualClock(10_003);
    const second = new ManualClock(10_742);
    // 10 s heartbeats: slots of one second; both calls next beat at 21 s.
    expect(first.now() + untilBeat(first, 10_000)).toBe(21_000);
    expect(second.now() + untilBeat(second, 10_000)).toBe(21_000);
    // Never early, and late by at most a tenth of the interval.
    for (const start of [0, 1, 999, 1000, 12_345]) {
      const delay = untilBeat(new ManualClock(start), 200);
      expect(delay).toBeGreaterThanOrEqual(200);
      expect(delay).toBeLessThan(220);
    }
  });
});
