import { describe, expect, it } from 'vitest';
import { startHeartbeat } from '../src/mcp/heartbeat.js';
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
});
