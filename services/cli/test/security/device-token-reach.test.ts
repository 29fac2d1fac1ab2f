import { describe, expect, it } from 'vitest';
import { eventually, type NodeProcess, sleep, tokens } from '../node-process.js';
import { call, claim, claimsOf, deviceToken, makePairing, usePairingNodes } from '../pairing-helpers.js';

const opsToken = () => tokens.sign({ sub: 'reach-admin', role: 'ops' });

/** The names on `user`'s device list, as `token` (one of theirs) reads it from `url`. */
async function deviceNames(url: string, token: string): Promise<string[]> {
  const list = await call('GET', `${url}/api/devices`, { token });
  expect(list.status).toBe(200);
  return (list.body.items as { deviceName: string }[]).map((device) => device.deviceName);
}

/**
 * Issue 34, round 3, on real node processes: two on one Redis (act on one, look on the other) and one
 * embedded. Finding 2: a pairing dies with the token that made it. Finding 5: a device token used
 * only over REST is on its user's device list and can be revoked from there.
 */
describe('what a device token reaches after its owner acts', { timeout: 120_000 }, () => {
  let a: NodeProcess;
  let b: NodeProcess;
  let solo: NodeProcess;
  usePairingNodes({}, (nodes) => {
    ({ a, b, solo } = nodes);
  });

  describe('finding 2: a pairing outlives the token that made it', () => {
    it('revoking the maker by jti on node A voids its open code at once on node B', async () => {
      const stolen = await deviceToken('reach-1', 'Laptop');
      const owner = await deviceToken('reach-1', 'Desk');
      const byThief = await makePairing(a.url, stolen);
      const byOwner = await makePairing(a.url, owner);
      // The owner sees the thief's token and revokes it, on A; the thief claims on B straight after.
      const revoked = await call('DELETE', `${a.url}/api/devices/${claimsOf(stolen).jti}`, { token: owner });
      expect(revoked.status).toBe(200);
      const late = await claim(b.url, byThief.code, 'Thief phone', '127.0.0.41');
      const wrong = await claim(b.url, 'ZZZZZZZZ', 'Thief phone', '127.0.0.41');
      expect(late.status).toBe(400);
      expect(late).toEqual(wrong);
      // The owner's own code, from a token still valid, works.
      const kept = await claim(b.url, byOwner.code, 'Phone', '127.0.0.41');
      expect(kept.status).toBe(200);
      expect(claimsOf(String(kept.body.token))).toMatchObject({ sub: 'reach-1', role: 'device' });
    });

    it('revoking the user on node A voids codes made by tokens issued before, not after', async () => {
      const stolen = await deviceToken('reach-2');
      const before = await makePairing(a.url, stolen);
      const revoked = await call('POST', `${a.url}/api/revocations`, {
        token: await opsToken(),
        body: { user: 'reach-2' },
      });
      expect(revoked.status).toBe(200);
      const late = await claim(b.url, before.code, 'Thief phone', '127.0.0.42');
      expect(late.status).toBe(400);
      expect(late.body).toMatchObject({ error: { code: 'invalid_pairing' } });
      const cutoff = (revoked.body.revoked as { issuedUpTo: number }).issuedUpTo;
      // Time is under test: `iat` has whole seconds and the cutoff includes its own, so the
      // person's next token must come from a later second to be valid.
      await sleep(Math.max(0, (cutoff + 1) * 1000 - Date.now()) + 50);
      const fresh = await deviceToken('reach-2', 'New laptop');
      const after = await makePairing(a.url, fresh);
      expect((await claim(b.url, after.code, 'Phone', '127.0.0.42')).status).toBe(200);
    });

    it('a code never outlives its maker token’s expiry', async () => {
      const shortLived = await tokens.sign({ sub: 'reach-7', role: 'device' }, { expiresIn: '2m' });
      const pairing = await makePairing(b.url, shortLived);
      // The node's codes live 10 minutes; this one ends with the token, 2 minutes from now.
      expect(pairing.expiresAt).toBe((claimsOf(shortLived).exp ?? 0) * 1000);
    });

    it('the embedded store: a revoked maker’s code is invalid, by jti and by user', async () => {
      const stolen = await deviceToken('reach-3');
      const owner = await deviceToken('reach-3', 'Desk');
      const byJti = await makePairing(solo.url, stolen);
      expect(
        (await call('DELETE', `${solo.url}/api/devices/${claimsOf(stolen).jti}`, { token: owner })).status,
      ).toBe(200);
      const late = await claim(solo.url, byJti.code, 'Thief phone', '127.0.0.43');
      expect(late.status).toBe(400);
      expect(late.body).toMatchObject({ error: { code: 'invalid_pairing' } });

      const byUser = await makePairing(solo.url, owner);
      const revoked = await call('POST', `${solo.url}/api/revocations`, {
        token: await opsToken(),
        body: { user: 'reach-3' },
      });
      expect(revoked.status).toBe(200);
      const alsoLate = await claim(solo.url, byUser.code, 'Thief phone', '127.0.0.43');
      expect(alsoLate.body).toMatchObject({ error: { code: 'invalid_pairing' } });
    });
  });

  describe('finding 5: a device token used only over REST is invisible', () => {
    it('used on node A over REST alone: listed on node B, revocable there by its user only', async () => {
      const script = await deviceToken('reach-4', 'Backup script');
      const desk = await deviceToken('reach-4', 'Desk');
      const stranger = await deviceToken('reach-5', 'Other');
      // The script reads the whole history over REST, never opening a socket.
      expect((await call('GET', `${a.url}/api/inquiries`, { token: script })).status).toBe(200);
      await eventually(async () => (await deviceNames(b.url, desk)).includes('Backup script'), 5000);
      expect((await deviceNames(b.url, desk)).sort()).toEqual(['Backup script', 'Desk']);
      const jti = claimsOf(script).jti;
      // Another user cannot revoke it, nor tell it exists.
      const foreign = await call('DELETE', `${b.url}/api/devices/${jti}`, { token: stranger });
      expect(foreign.status).toBe(404);
      expect((await call('GET', `${a.url}/api/inquiries`, { token: script })).status).toBe(200);

      const revoked = await call('DELETE', `${b.url}/api/devices/${jti}`, { token: desk });
      expect(revoked).toEqual({ status: 200, body: { revoked: { jti } } });
      await eventually(
        async () => (await call('GET', `${a.url}/api/inquiries`, { token: script })).status === 401,
        5000,
      );
      expect(await deviceNames(a.url, desk)).toEqual(['Desk']);
    });

    it('the embedded store: a REST-only token is listed and revocable', async () => {
      const script = await deviceToken('reach-6', 'Cron');
      const desk = await deviceToken('reach-6', 'Desk');
      expect((await call('GET', `${solo.url}/api/inquiries`, { token: script })).status).toBe(200);
      await eventually(async () => (await deviceNames(solo.url, desk)).includes('Cron'), 5000);
      const jti = claimsOf(script).jti;
      expect((await call('DELETE', `${solo.url}/api/devices/${jti}`, { token: desk })).status).toBe(200);
      await eventually(
        async () => (await call('GET', `${solo.url}/api/inquiries`, { token: script })).status === 401,
        5000,
      );
    });
  });
});
