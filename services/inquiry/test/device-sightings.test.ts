import { MemoryDeviceStore } from '@hitl/store';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DeviceSightings, SIGHTING_THROTTLE_MS } from '../src/devices/device-sightings.js';
import { ManualClock } from './manual-clock.js';

const device = { sub: 'u1', role: 'device' as const, jti: 'j1', name: 'Script', iat: 100 };

function sightingsAt(clock: ManualClock) {
  const devices = new MemoryDeviceStore();
  const sightings = new DeviceSightings({ devices, clock, logger: pino({ level: 'silent' }) });
  return { devices, sightings };
}

describe('device sightings', () => {
  it('a use makes the record; lastSeenAt is written again only once the throttle has passed', async () => {
    const clock = new ManualClock(1_000_000);
    const { devices, sightings } = sightingsAt(clock);
    await sightings.seen(device);
    expect(await devices.listDevices('u1')).toEqual([
      {
        jti: 'j1',
        userId: 'u1',
        deviceName: 'Script',
        createdAt: 1_000_000,
        lastSeenAt: 1_000_000,
        iat: 100,
      },
    ]);
    clock.advance(SIGHTING_THROTTLE_MS - 1);
    await sightings.seen(device);
    expect((await devices.listDevices('u1'))[0]?.lastSeenAt).toBe(1_000_000);
    clock.advance(1);
    await sightings.seen(device);
    expect((await devices.listDevices('u1'))[0]?.lastSeenAt).toBe(1_000_000 + SIGHTING_THROTTLE_MS);
  });

  it('a device naming itself differently is written at once', async () => {
    const clock = new ManualClock(0);
    const { devices, sightings } = sightingsAt(clock);
    await sightings.seen(device);
    clock.advance(10);
    await sightings.seen(device, 'Kitchen tablet');
    expect(await devices.listDevices('u1')).toMatchObject([{ deviceName: 'Kitchen tablet', lastSeenAt: 10 }]);
  });

  it('a record removed here is not written back by a later use of its token', async () => {
    const clock = new ManualClock(0);
    const { devices, sightings } = sightingsAt(clock);
    await sightings.seen(device);
    await devices.removeDevice('u1', 'j1');
    sightings.removed('j1');
    clock.advance(SIGHTING_THROTTLE_MS * 2);
    await sightings.seen(device, 'Renamed');
    expect(await devices.listDevices('u1')).toEqual([]);
  });

  it('tokens of other roles, and device tokens without a jti, have no record', async () => {
    const { devices, sightings } = sightingsAt(new ManualClock(0));
    await sightings.seen({ sub: 'u1', role: 'ops', jti: 'o1' });
    await sightings.seen({ sub: 'u1', role: 'device' });
    expect(await devices.listDevices('u1')).toEqual([]);
  });
});
