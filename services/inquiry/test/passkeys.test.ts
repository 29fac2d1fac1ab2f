import type { AuditRecordsPage, Inquiry } from '@hitl/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftwareAuthenticator } from '../src/testing/software-authenticator.js';
import { type Asked, ask, newUser } from './decision-helpers.js';
import { body, startTestNode, type TestNode } from './harness.js';

const json = (value: unknown) => ({
  method: 'POST',
  body: JSON.stringify(value),
  headers: { 'content-type': 'application/json' },
});

describe('passkey approvals bound to the exact action (REST, a software authenticator)', () => {
  let t: TestNode;
  let origin: string;
  beforeAll(async () => {
    t = await startTestNode('sqlite');
    // No HITL_PUBLIC_URL: the relying party is http://localhost:<port>.
    origin = `http://localhost:${new URL(t.url).port}`;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A user with a registered passkey on a software authenticator of this origin. */
  async function enrolled(user = newUser()) {
    const token = await t.token(user, 'device', 'laptop');
    const authenticator = new SoftwareAuthenticator({ origin });
    const options = await body<{ challenge: string; rp: { id: string } }>(
      await t.rest('/api/passkeys/options', { method: 'POST', token }),
    );
    expect(options.rp.id).toBe('localhost');
    const registration = authenticator.register(options);
    const created = await t.rest('/api/passkeys', { ...json(registration), token });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ id: authenticator.id });
    return { user, token, authenticator, registration };
  }

  const approval = (user: string) =>
    ask(
      t,
      {
        question: 'Pay invoice 42?',
        kind: 'approval',
        requirePasskey: true,
        action: { server: 'billing', tool: 'pay', arguments: { invoice: 42, amount: 1200 } },
      },
      user,
    );

  const optionsFor = async (token: string, inquiryId: string, args?: Record<string, unknown>) => {
    const response = await t.rest(`/api/inquiries/${inquiryId}/passkey-options`, {
      ...json(args ? { arguments: args } : {}),
      token,
    });
    expect(response.status).toBe(200);
    return body<{ challenge: string; rpId: string; allowCredentials: { id: string }[] }>(response);
  };

  const answer = (token: string, inquiryId: string, payload: Record<string, unknown>) =>
    t.rest(`/api/inquiries/${inquiryId}/answer`, { ...json(payload), token });

  async function stillPending(token: string, asked: Asked) {
    const inquiry = await body<Inquiry>(await t.rest(`/api/inquiries/${asked.pushed.inquiryId}`, { token }));
    expect(inquiry.status).toBe('pending');
  }

  it('offers only the key algorithms every supported Node verifies (Ed25519, ES256, RS256), never an experimental one', async () => {
    // A key registered through a node on one Node version must verify on every node of the deployment:
    // Node 24 can verify ML-DSA-44 (COSE -48) only behind an experimental Web Crypto flag, Node 20 not at all.
    const token = await t.token(newUser(), 'device', 'laptop');
    const options = await body<{ pubKeyCredParams: { alg: number; type: string }[] }>(
      await t.rest('/api/passkeys/options', { method: 'POST', token }),
    );
    expect(options.pubKeyCredParams).toEqual([
      { alg: -8, type: 'public-key' },
      { alg: -7, type: 'public-key' },
      { alg: -257, type: 'public-key' },
    ]);
  });

  it('registers, lists and deletes passkeys; a registration response is used once; only devices', async () => {
    const { user, token, authenticator, registration } = await enrolled();
    expect((await t.rest('/api/passkeys', { ...json(registration), token })).status).toBe(400);
    const listed = await body<{ items: { id: string; deviceName?: string }[] }>(
      await t.rest('/api/passkeys', { token }),
    );
    expect(listed.items).toEqual([expect.objectContaining({ id: authenticator.id, deviceName: 'laptop' })]);
    const agent = await t.token(user, 'agent');
    expect((await t.rest('/api/passkeys/options', { method: 'POST', token: agent })).status).toBe(403);
    expect((await t.rest('/api/passkeys', { token: await t.token(user, 'ops') })).status).toBe(403);
    expect(
      (
        await t.rest(`/api/passkeys/${authenticator.id}`, {
          method: 'DELETE',
          token: await t.token(newUser(), 'device'),
        })
      ).status,
    ).toBe(404);
    expect((await t.rest(`/api/passkeys/${authenticator.id}`, { method: 'DELETE', token })).status).toBe(204);
    expect(await body(await t.rest('/api/passkeys', { token }))).toEqual({ items: [] });
  });

  it('approves only with a fresh assertion for this inquiry; the result and the chain name the passkey', async () => {
    const { user, token, authenticator } = await enrolled();
    const asked = await approval(user);
    const id = asked.pushed.inquiryId;
    expect(asked.pushed).toMatchObject({ requirePasskey: true, critical: true });
    const without = await answer(token, id, { response: 'approve' });
    expect(without.status).toBe(403);
    expect(await without.json()).toMatchObject({ error: { code: 'passkey_required' } });
    await stillPending(token, asked);
    const options = await optionsFor(token, id);
    expect(options.allowCredentials.map((c) => c.id)).toEqual([authenticator.id]);
    const assertion = authenticator.assert(options);
    expect((await answer(token, id, { response: 'approve', webauthn: assertion })).status).toBe(200);
    expect((await asked.result).structured).toMatchObject({ status: 'answered', answer: 'approve' });
    const ops = await t.token('auditor', 'ops');
    const page = await body<AuditRecordsPage>(await t.rest('/api/audit/records?limit=1000', { token: ops }));
    expect(page.items.find((e) => e.record.inquiryId === id)?.record).toMatchObject({
      type: 'answer',
      answer: 'approve',
      passkey: authenticator.id,
    });
  });

  it('refuses a replay, an assertion for another inquiry, a challenge we did not issue, a wrong origin and a counter going backwards', async () => {
    const { user, token, authenticator } = await enrolled();
    const refusedWith = async (asked: Asked, webauthn: unknown, reason: RegExp) => {
      const response = await answer(token, asked.pushed.inquiryId, { response: 'approve', webauthn });
      expect(response.status).toBe(403);
      const error = (await response.json()) as { error: { code: string; message: string } };
      expect(error.error.code).toBe('passkey_required');
      expect(error.error.message).toMatch(reason);
      await stillPending(token, asked);
    };
    const first = await approval(user);
    const second = await approval(user);
    // An assertion made for the first inquiry, sent for the second: refused, and its nonce is spent.
    const forFirst = authenticator.assert(await optionsFor(token, first.pushed.inquiryId));
    await refusedWith(second, forFirst, /another inquiry/);
    // So the same assertion, replayed on its own inquiry, finds its challenge used.
    await refusedWith(first, forFirst, /not issued|used/);
    // A challenge this service never issued.
    await refusedWith(
      first,
      authenticator.assert({
        challenge: Buffer.from('made up by an attacker').toString('base64url'),
        rpId: 'localhost',
      }),
      /not issued/,
    );
    // Signed by the right passkey on another origin (a phishing page relaying the options), or for another RP.
    const phished = authenticator.assert(await optionsFor(token, first.pushed.inquiryId), {
      origin: 'https://evil.example',
    });
    await refusedWith(first, phished, /origin/i);
    const otherRp = authenticator.assert(await optionsFor(token, first.pushed.inquiryId), {
      rpId: 'evil.example',
    });
    await refusedWith(first, otherRp, /RP ID/i);
    // Another authenticator, not registered by this person.
    const stranger = new SoftwareAuthenticator({ origin });
    await refusedWith(
      first,
      stranger.assert(await optionsFor(token, first.pushed.inquiryId)),
      /not signed by one of your passkeys/,
    );
    // The real one works and moves the counter on...
    const ok = authenticator.assert(await optionsFor(token, first.pushed.inquiryId));
    expect((await answer(token, first.pushed.inquiryId, { response: 'approve', webauthn: ok })).status).toBe(
      200,
    );
    // ...so a counter that goes backwards (a cloned authenticator) is refused.
    authenticator.counter = 1;
    await refusedWith(
      second,
      authenticator.assert(await optionsFor(token, second.pushed.inquiryId)),
      /cloned/,
    );
    // A reject needs no passkey.
    expect((await answer(token, second.pushed.inquiryId, { response: 'reject' })).status).toBe(200);
    await Promise.all([first.result, second.result]);
  });

  it('a device socket approves with the assertion too; options for other arguments do not fit these', async () => {
    const { user, token, authenticator } = await enrolled();
    const asked = await approval(user);
    const id = asked.pushed.inquiryId;
    const edited = authenticator.assert(await optionsFor(token, id, { invoice: 42, amount: 999_999 }));
    const wrong = await asked.device.emit('inquiry:answer', {
      inquiryId: id,
      response: 'approve',
      webauthn: edited,
    });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'passkey_required' } });
    const right = authenticator.assert(await optionsFor(token, id));
    const ack = await asked.device.emit('inquiry:answer', {
      inquiryId: id,
      response: 'approve',
      webauthn: right,
    });
    expect(ack).toMatchObject({ ok: true, status: 'answered' });
    await asked.result;
  });

  it('an edited approve is bound to the edited arguments; allowFor is refused', async () => {
    const { user, token, authenticator } = await enrolled();
    const asked = await ask(
      t,
      {
        question: 'Pay invoice 7?',
        kind: 'approval',
        requirePasskey: true,
        editable: ['amount'],
        action: { server: 'billing', tool: 'pay', arguments: { invoice: 7, amount: 100 } },
      },
      user,
    );
    const id = asked.pushed.inquiryId;
    const edit = { arguments: { amount: 90 } };
    // Signed for the arguments as asked, sent with an edit: refused.
    const asAsked = authenticator.assert(await optionsFor(token, id));
    const stale = await answer(token, id, { response: 'approve', ...edit, webauthn: asAsked });
    expect(stale.status).toBe(403);
    const forever = authenticator.assert(await optionsFor(token, id, { invoice: 7, amount: 90 }));
    const allowFor = await answer(token, id, {
      response: 'approve',
      ...edit,
      allowFor: { minutes: 5 },
      webauthn: forever,
    });
    expect(allowFor.status).toBe(400);
    const signed = authenticator.assert(await optionsFor(token, id, { invoice: 7, amount: 90 }));
    expect((await answer(token, id, { response: 'approve', ...edit, webauthn: signed })).status).toBe(200);
    expect((await asked.result).structured).toMatchObject({
      answer: 'approve',
      arguments: { invoice: 7, amount: 90 },
      changed: ['amount'],
    });
  });
});
