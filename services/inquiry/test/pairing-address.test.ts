import { TokenService } from '@hitl/auth';
import { createLogger } from '@hitl/runtime';
import { MemoryDeviceStore, MemoryRevocationStore } from '@hitl/store';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { addressBudgetKey } from '../src/core/address-key.js';
import { systemClock } from '../src/core/ports.js';
import { createRateLimiter } from '../src/core/rate-limit.js';
import { DeviceSightings } from '../src/devices/device-sightings.js';
import { deviceRoutes } from '../src/http/device-routes.js';
import { restErrors } from '../src/http/error-handlers.js';

/**
 * The claim route in this process, with the peer address it sees set per request (the node reads it
 * from the socket as `@hono/node-server` gives it). This machine has one address per /64 (`::1` is a
 * /128 of its own), so two peers of one /64 cannot connect to a real node here.
 */
function claimApp() {
  const logger = createLogger('silent', 'test');
  const devices = new MemoryDeviceStore();
  const routes = deviceRoutes({
    tokens: new TokenService('pairing-address-test-secret-long-enough'),
    limiter: createRateLimiter(0),
    clock: systemClock,
    revocations: new MemoryRevocationStore(),
    pairing: {
      devices,
      sightings: new DeviceSightings({ devices, clock: systemClock, logger }),
      wrongCodes: createRateLimiter(10),
      ttlMs: 600_000,
    },
  });
  const app = new Hono().route('/api', routes);
  app.onError(restErrors(logger));
  return (from: string) =>
    app.request(
      '/api/pairings/claim',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"code":"ZZZZ2345","deviceName":"Phone"}',
      },
      {
        incoming: {
          socket: {
            remoteAddress: from,
            remotePort: 50_000,
            remoteFamily: from.includes(':') ? 'IPv6' : 'IPv4',
          },
        },
      },
    );
}

describe('the wrong-code budget is per host', () => {
  it('addresses of one IPv6 /64 share one budget; another /64 and IPv4 addresses have their own', async () => {
    const claimFrom = claimApp();
    for (let n = 0; n < 10; n += 1) {
      const reply = await claimFrom(`2001:db8:1:2::${n + 1}`);
      expect(reply.status, `try ${n + 1}`).toBe(400);
    }
    expect((await claimFrom('2001:db8:1:2:ffff:ffff:ffff:ffff')).status).toBe(429);
    expect((await claimFrom('2001:db8:1:3::1')).status).toBe(400);
    expect((await claimFrom('192.0.2.1')).status).toBe(400);
  });

  it('keys an address by its host: IPv4 as itself (also IPv4-mapped), IPv6 by its /64', () => {
    expect(addressBudgetKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressBudgetKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressBudgetKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressBudgetKey('2001:DB8:1:2:abcd:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(addressBudgetKey('2001:0db8:0001:0002:0000:0000:0000:0009')).toBe('2001:db8:1:2::/64');
    expect(addressBudgetKey('fe80::1%eth0')).toBe('fe80::/64');
    expect(addressBudgetKey('::1')).toBe('::/64');
    expect(addressBudgetKey('unknown')).toBe('unknown');
  });
});
