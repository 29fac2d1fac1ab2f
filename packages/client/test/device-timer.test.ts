import { describe, expect, it } from 'vitest';
import { DeviceTimer } from '../src/device-timer.js';
import { applyNew, emptyPendingState, newestFirst, received } from '../src/pending.js';
import { FakeClock } from './fake-clock.js';
import { deviceInquiry } from './inquiries.js';

const LOCAL = 1_700_000_000_000;

function setup(connected = true) {
  const clock = new FakeClock(LOCAL);
  const sent: { id: string; at: number }[] = [];
  const link = { connected };
  const timer = new DeviceTimer({
    clock,
    canSend: () => link.connected,
    send: (id) => sent.push({ id, at: clock.now() }),
  });
  return { clock, sent, link, timer };
}

describe('device timer (tier 1)', () => {
  it('reports exactly once, at the skew-corrected deadline', () => {
    const { clock, sent, timer } = setup();
    // The server clock runs 5 s ahead; its deadline is 30 s after its own now, so 30 s after ours.
    const inquiry = received(deviceInquiry('01A', LOCAL + 5000), clock.now());
    timer.track([inquiry]);
    clock.advance(29_999);
    expect(sent).toEqual([]);
    clock.advance(1);
    expect(sent).toEqual([{ id: '01A', at: LOCAL + 30_000 }]);
    // Later syncs that still list it (e.g. the ack was lost) never report it again.
    timer.track([inquiry]);
    clock.advance(60_000);
    expect(sent).toHaveLength(1);
    expect(timer.hasFired('01A')).toBe(true);
  });

  it('a device whose clock is ahead counts from the server deadline, not its own', () => {
    const { clock, sent, timer } = setup();
    // The device clock runs 8 s ahead of the server.
    const inquiry = received(deviceInquiry('01A', LOCAL - 8000), clock.now());
    timer.track([inquiry]);
    clock.advance(29_000);
    expect(sent).toEqual([]);
    clock.advance(1000);
    expect(sent.map((s) => s.at - LOCAL)).toEqual([30_000]);
  });

  it('an inquiry that ends first is never reported', () => {
    const { clock, sent, timer } = setup();
    const a = received(deviceInquiry('01A', LOCAL), clock.now());
    const b = received(deviceInquiry('01B', LOCAL + 1000), clock.now());
    timer.track([a, b]);
    clock.advance(10_000);
    timer.track([b]);
    clock.advance(40_000);
    expect(sent.map((s) => s.id)).toEqual(['01B']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a deadline passed while offline is reported right after the next sync', () => {
    const { clock, sent, link, timer } = setup(false);
    const a = received(deviceInquiry('01A', LOCAL), clock.now());
    timer.track([a]);
    clock.advance(31_000);
    expect(sent).toEqual([]);
    link.connected = true;
    timer.track([a]);
    clock.advance(0);
    expect(sent).toEqual([{ id: '01A', at: LOCAL + 31_000 }]);
  });

  it('a moved deadline (an updated copy) restarts the countdown', () => {
    const { clock, sent, timer } = setup();
    const state = applyNew(emptyPendingState, deviceInquiry('01A', LOCAL), clock.now()).state;
    timer.track(newestFirst(state));
    clock.advance(10_000);
    const later = received(
      deviceInquiry('01A', LOCAL, {
        deadlines: { deviceAt: LOCAL + 45_000, serviceAt: LOCAL + 50_000, clientAt: LOCAL + 90_000 },
        serverTime: clock.now(),
      }),
      clock.now(),
    );
    timer.track([later]);
    clock.advance(25_000);
    expect(sent).toEqual([]);
    clock.advance(10_000);
    expect(sent.map((s) => s.at - LOCAL)).toEqual([45_000]);
  });

  it('stop() cancels every countdown', () => {
    const { clock, sent, timer } = setup();
    timer.track([received(deviceInquiry('01A', LOCAL), clock.now())]);
    timer.stop();
    clock.advance(60_000);
    expect(sent).toEqual([]);
  });
});
