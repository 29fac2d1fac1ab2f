import { PAIRING_ALPHABET } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import { eventually, type NodeProcess, sleep, tokens } from './node-process.js';
import { call, claim, claimsOf, deviceToken, makePairing, usePairingNodes } from './pairing-helpers.js';
import { watchSocket } from './security/socket-helpers.js';

const INVALID = { error: { code: 'invalid_pairing' } };

/** Pairing on real node processes: two on one Redis (pair on one, claim on the other) and one embedded. */
describe('adding a device by pairing code', { timeout: 90_000 }, () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let solo: NodeProcess;
  // B's codes live 2 s, so a test can watch one expire.
  usePairingNodes({ HITL_PAIRING_TTL_MS: '2000' }, (nodes) => {
    ({ a, b, solo } = nodes);
  });

  it('a code made on one node is claimed on the other, once: a new device token of the same user', async () => {
    const desktop = await deviceToken('pair-1');
    const pairing = await makePairing(a.url, desktop);
    expect(pairing.code).toHaveLength(8);
    expect([...pairing.code].every((ch) => PAIRING_ALPHABET.includes(ch))).toBe(true);
    expect(pairing.url).toBe(`${a.url}/pair#${pairing.code}`);
    expect(pairing.expiresAt - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(pairing.expiresAt - Date.now()).toBeLessThanOrEqual(10 * 60_000);

    // Typed by a person: lower case, with the dash the page shows.
    const typed = `${pairing.code.slice(0, 4)}-${pairing.code.slice(4)}`.toLowerCase();
    const won = await claim(b.url, typed, '  Phone\u202e ', '127.0.0.11');
    expect(won.status).toBe(200);
    expect(won.body).toMatchObject({ user: 'pair-1', deviceName: 'Phone' });
    const claims = claimsOf(String(won.body.token));
    expect(claims).toMatchObject({ sub: 'pair-1', role: 'device', name: 'Phone' });
    expect(claims.jti).not.toBe(claimsOf(desktop).jti);
    const listed = await call('GET', `${a.url}/api/inquiries`, { token: String(won.body.token) });
    expect(listed.status).toBe(200);

    const again = await claim(a.url, pairing.code, 'Phone', '127.0.0.11');
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject(INVALID);
    const wrong = await claim(a.url, 'ZZZZZZZZ', 'Phone', '127.0.0.11');
    expect(wrong).toEqual(again);
  });

  it('an expired code is the same 400 as a wrong one', async () => {
    const pairing = await makePairing(b.url, await deviceToken('pair-2'));
    expect(pairing.expiresAt - Date.now()).toBeLessThanOrEqual(2000);
    // time itself is under test: the 2 s code expires.
    await sleep(2500);
    const late = await claim(a.url, pairing.code, 'Phone', '127.0.0.12');
    expect(late.status).toBe(400);
    const wrong = await claim(a.url, 'ZZZZZZZZ', 'Phone', '127.0.0.12');
    expect(late).toEqual(wrong);
  });

  it('a bad body is invalid input naming the field, not a wrong code', async () => {
    const missing = await claim(a.url, 'ABCD2345', '', '127.0.0.13');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: { code: 'invalid_input' } });
    expect(String((missing.body.error as { message: string }).message)).toMatch(/^deviceName/);
    const long = await claim(a.url, 'ABCD2345', 'x'.repeat(101), '127.0.0.13');
    expect(long.body).toMatchObject({ error: { code: 'invalid_input' } });
    const unauthenticated = await call('POST', `${a.url}/api/pairings`, { from: '127.0.0.13' });
    expect(unauthenticated.status).toBe(401);
    const agent = await tokens.sign({ sub: 'pair-3', role: 'agent' });
    expect((await call('POST', `${a.url}/api/pairings`, { token: agent })).status).toBe(403);
  });

  it('11 wrong codes in a minute from one address: 429, on either node, even for a right code', async () => {
    const from = '127.0.0.14';
    for (let n = 0; n < 10; n += 1) {
      const reply = await claim(n % 2 === 0 ? a.url : b.url, 'WRONG234', 'Phone', from);
      expect(reply.status, `try ${n + 1}`).toBe(400);
    }
    const eleventh = await claim(a.url, 'WRONG234', 'Phone', from);
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toMatchObject({ error: { code: 'rate_limited' } });
    const pairing = await makePairing(a.url, await deviceToken('pair-4'));
    expect((await claim(b.url, pairing.code, 'Phone', from)).status).toBe(429);
    // Another address is not held up by this one.
    expect((await claim(b.url, pairing.code, 'Phone', '127.0.0.15')).status).toBe(200);
  });

  it('lists the user’s devices on every node, and revoking one drops its socket and refuses its token everywhere', async () => {
    const desktop = await deviceToken('pair-5', 'Laptop');
    const pairing = await makePairing(a.url, desktop);
    const phone = String((await claim(b.url, pairing.code, 'Phone', '127.0.0.16')).body.token);
    const phoneJti = claimsOf(phone).jti;
    const socket = watchSocket(a.url, { token: phone, deviceName: 'Phone' });
    expect(await socket.outcome).toEqual({ connected: true });

    const list = await call('GET', `${b.url}/api/devices`, { token: desktop });
    expect(list.status).toBe(200);
    const items = list.body.items as {
      jti: string;
      deviceName: string;
      current: boolean;
      createdAt: number;
      lastSeenAt: number;
    }[];
    expect(items.map((d) => [d.deviceName, d.current])).toEqual([
      ['Laptop', true],
      ['Phone', false],
    ]);
    expect(items[1]?.jti).toBe(phoneJti);
    expect(items[1]?.lastSeenAt).toBeGreaterThanOrEqual(items[1]?.createdAt ?? Infinity);
    const fromPhone = await call('GET', `${a.url}/api/devices`, { token: phone });
    expect((fromPhone.body.items as { jti: string; current: boolean }[]).find((d) => d.current)?.jti).toBe(
      phoneJti,
    );
    // Another user sees none of them, and cannot revoke them.
    const stranger = await deviceToken('pair-6');
    expect((await call('GET', `${a.url}/api/devices`, { token: stranger })).body.items).toEqual([
      expect.objectContaining({ current: true }),
    ]);
    expect((await call('DELETE', `${a.url}/api/devices/${phoneJti}`, { token: stranger })).status).toBe(404);

    const revoked = await call('DELETE', `${b.url}/api/devices/${phoneJti}`, { token: desktop });
    expect(revoked).toEqual({ status: 200, body: { revoked: { jti: phoneJti } } });
    await eventually(() => !socket.socket.connected, 5000);
    for (const node of [a, b]) {
      await eventually(
        async () => (await call('GET', `${node.url}/api/inquiries`, { token: phone })).status === 401,
        5000,
      );
    }
    const again = watchSocket(b.url, { token: phone, deviceName: 'Phone' });
    expect(await again.outcome).toMatchObject({ connected: false, data: { code: 'unauthorized' } });
    const after = await call('GET', `${a.url}/api/devices`, { token: desktop });
    expect((after.body.items as { deviceName: string }[]).map((d) => d.deviceName)).toEqual(['Laptop']);
    expect((await call('GET', `${a.url}/api/inquiries`, { token: desktop })).status).toBe(200);
  });

  it('works the same on the embedded store: claimed once, listed, revoked', async () => {
    const desktop = await deviceToken('pair-7');
    const pairing = await makePairing(solo.url, desktop);
    const won = await claim(solo.url, pairing.code, 'Tablet', '127.0.0.17');
    expect(won.status).toBe(200);
    expect((await claim(solo.url, pairing.code, 'Tablet', '127.0.0.17')).body).toMatchObject(INVALID);
    const tablet = String(won.body.token);
    const list = await call('GET', `${solo.url}/api/devices`, { token: desktop });
    expect((list.body.items as { deviceName: string }[]).map((d) => d.deviceName)).toEqual([
      'Laptop',
      'Tablet',
    ]);
    const jti = claimsOf(tablet).jti;
    expect((await call('DELETE', `${solo.url}/api/devices/${jti}`, { token: desktop })).status).toBe(200);
    await eventually(
      async () => (await call('GET', `${solo.url}/api/inquiries`, { token: tablet })).status === 401,
      5000,
    );
  });
});
