import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { InquiryResult } from '@hitl/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestDevice, type TestNode } from './harness.js';

/** Answer links: `/a/<link token>`, one inquiry, answered once, GET changes nothing. */

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;

/** A request with the `Host` header it is given (fetch cannot set one). */
function rawRequest(
  url: string,
  method: 'GET' | 'POST',
  host: string,
  form?: URLSearchParams,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(form?.toString());
  });
}

describe('answer links (real node, SDK client, socket.io device)', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Asks `args` as `user` and returns the held call and the inquiry as the device got it. */
  async function ask(user: string, args: Record<string, unknown>) {
    const device: TestDevice = await t.device(user, 'desk');
    await device.synced;
    const agent: Client = await t.mcp(user);
    const call = agent.callTool({ name: 'send_inquiry', arguments: args });
    const shown = await device.nextNew();
    return { call, shown, device };
  }
  const link = (user: string, inquiryId: string, expiresAt = Date.now() + 60_000) =>
    t.node.links.sign({ userId: user, inquiryId, channel: 'email', expiresAt });
  const open = (token: string, init: RequestInit = {}) => fetch(`${t.url}/a/${token}`, init);
  const post = (token: string, fields: [string, string][]) =>
    open(token, { method: 'POST', body: new URLSearchParams(fields) });

  it('shows the question without changing it, answers once, then says who answered', async () => {
    const user = newUser();
    const question = 'Ship <script>alert(1)</script> today?';
    const { call, shown, device } = await ask(user, { question, options: ['yes', 'no'] });
    const token = await link(user, shown.inquiryId);

    for (let i = 0; i < 2; i++) {
      const page = await open(token);
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain('script-src');
      expect(page.headers.get('referrer-policy')).toBe('same-origin');
      expect(page.headers.get('cache-control')).toBe('no-store');
      const html = await page.text();
      expect(html).toContain('Ship &lt;script&gt;alert(1)&lt;/script&gt; today?');
      expect(html).not.toContain('<script');
      expect(html).toContain('value="no"');
    }
    const [status] = await t
      .rest(`/api/inquiries/${shown.inquiryId}`, { token: await t.token(user, 'device') })
      .then(async (r) => [((await r.json()) as { status: string }).status]);
    expect(status).toBe('pending');

    const answered = await post(token, [
      ['response', 'no'],
      ['action', 'answer'],
    ]);
    expect(answered.status).toBe(200);
    expect(await answered.text()).toContain('Your answer was sent');
    expect(structured(await call)).toMatchObject({
      status: 'answered',
      answer: 'no',
      resolvedBy: { kind: 'human', deviceName: 'email link' },
    });
    expect((await device.nextResolved()).inquiryId).toBe(shown.inquiryId);

    const again = await post(token, [['response', 'yes']]);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('answered from email link');
    const later = await open(token);
    expect(later.status).toBe(200);
    expect(await later.text()).toContain('This question is closed');
  });

  it('answers a form and an approval, refuses through the link, and rejects an answer that does not fit', async () => {
    const user = newUser();
    const questions = [
      { id: 'size', prompt: 'Size?', kind: 'choice', options: ['S', 'M', 'L'], required: true },
      { id: 'extras', prompt: 'Extras?', kind: 'multi', options: ['bag', 'card'] },
      { id: 'budget', prompt: 'Budget?', kind: 'number' },
      { id: 'gift', prompt: 'Gift?', kind: 'boolean' },
      { id: 'note', prompt: 'Note?', kind: 'text' },
    ];
    const form = await ask(user, { question: 'Your order', questions });
    const formLink = await link(user, form.shown.inquiryId);
    const bad = await post(formLink, [['q.size', 'XL']]);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/role="alert">response: .*XL/);
    const good = await post(formLink, [
      ['q.size', 'M'],
      ['q.extras', 'bag'],
      ['q.extras', 'card'],
      ['q.budget', '42.5'],
      ['q.gift', 'yes'],
      ['q.note', 'blue'],
    ]);
    expect(good.status).toBe(200);
    expect(structured(await form.call).answer).toEqual({
      size: 'M',
      extras: ['bag', 'card'],
      budget: 42.5,
      gift: true,
      note: 'blue',
    });

    const approval = await ask(user, {
      question: 'Delete the staging database?',
      kind: 'approval',
      action: { server: 'ops', tool: 'drop_db', arguments: { name: 'staging' } },
    });
    const approvalPage = await (await open(await link(user, approval.shown.inquiryId))).text();
    expect(approvalPage).toContain('drop_db');
    expect(approvalPage).toContain('value="approve"');
    expect((await post(await link(user, approval.shown.inquiryId), [['action', 'reject']])).status).toBe(200);
    expect(structured(await approval.call)).toMatchObject({ status: 'answered', answer: 'reject' });

    const refused = await ask(user, { question: 'Favourite colour?' });
    expect((await post(await link(user, refused.shown.inquiryId), [['action', 'refuse']])).status).toBe(200);
    expect(structured(await refused.call)).toMatchObject({
      status: 'refused',
      resolvedBy: { kind: 'human' },
    });
  });

  it('a reject and a refusal through a link carry the reason the person wrote; an overlong one is refused', async () => {
    const user = newUser();
    const approval = await ask(user, {
      question: 'Drop the cache?',
      kind: 'approval',
      action: { server: 'ops', tool: 'drop_cache', arguments: {} },
    });
    const page = await (await open(await link(user, approval.shown.inquiryId))).text();
    expect(page).toContain('name="reason"');
    const tooLong = await post(await link(user, approval.shown.inquiryId), [
      ['action', 'reject'],
      ['reason', 'x'.repeat(1001)],
    ]);
    expect(tooLong.status).toBe(400);
    expect(await tooLong.text()).toContain('reason: at most 1000 characters');
    const rejected = await post(await link(user, approval.shown.inquiryId), [
      ['action', 'reject'],
      ['reason', '  not during the sale  '],
    ]);
    expect(rejected.status).toBe(200);
    expect(structured(await approval.call)).toMatchObject({
      answer: 'reject',
      reason: 'not during the sale',
    });

    const question = await ask(user, { question: 'Favourite shop?' });
    await post(await link(user, question.shown.inquiryId), [
      ['action', 'refuse'],
      ['reason', 'private'],
    ]);
    expect(structured(await question.call)).toMatchObject({ status: 'refused', reason: 'private' });
  });

  it('refuses a foreign Host (DNS rebinding) on GET and POST as the device terminal does; loopback names pass', async () => {
    const user = newUser();
    const question = 'Rotate the signing key?';
    const { call, shown } = await ask(user, { question, options: ['yes', 'no'] });
    const token = await link(user, shown.inquiryId);
    const { port } = new URL(t.url);
    const url = `${t.url}/a/${token}`;
    const form = new URLSearchParams([['response', 'yes']]);

    const terminal = await rawRequest(`${t.url}/`, 'GET', 'evil.example');
    expect(terminal.status).toBe(403);
    for (const host of ['evil.example', `evil.example:${port}`, `attacker.localhost.evil.example:${port}`]) {
      const page = await rawRequest(url, 'GET', host);
      expect(page.status, host).toBe(terminal.status);
      expect(page.body).not.toContain(question);
      const posted = await rawRequest(url, 'POST', host, form);
      expect(posted.status, host).toBe(403);
    }
    // Nothing was answered through the refused posts.
    const read = await t.rest(`/api/inquiries/${shown.inquiryId}`, { token: await t.token(user, 'device') });
    expect(((await read.json()) as { status: string }).status).toBe('pending');

    // The loopback names the node answers to on any port work, as on the terminal.
    const local = await rawRequest(url, 'GET', `localhost:${port}`);
    expect(local.status).toBe(200);
    expect(local.body).toContain(question);
    const answered = await rawRequest(url, 'POST', `127.0.0.1:${port}`, form);
    expect(answered.status).toBe(200);
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'yes' });
  });

  it('after a device answered, the link says so and who answered, and its POST is refused (first answer wins)', async () => {
    const user = newUser();
    const { call, shown, device } = await ask(user, {
      question: 'Merge the branch?',
      options: ['yes', 'no'],
    });
    const token = await link(user, shown.inquiryId);
    expect(await device.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'no' })).toMatchObject(
      {
        ok: true,
      },
    );
    expect(structured(await call)).toMatchObject({
      status: 'answered',
      answer: 'no',
      resolvedBy: { kind: 'human', deviceName: 'desk' },
    });

    const late = await post(token, [['response', 'yes']]);
    expect(late.status).toBe(409);
    const html = await late.text();
    expect(html).toContain('Already answered');
    expect(html).toContain('answered from desk');
    expect(html).not.toContain('Your answer was sent');
    const page = await open(token);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('answered from desk');
    // The device's answer stands.
    const read = await t.rest(`/api/inquiries/${shown.inquiryId}`, { token: await t.token(user, 'device') });
    expect(await read.json()).toMatchObject({ status: 'answered', answer: 'no' });
  });

  it('a link and a device answering at once: exactly one wins, and the other is told who did', async () => {
    const user = newUser();
    const { call, shown } = await ask(user, { question: 'Who is first?' });
    const token = await link(user, shown.inquiryId);
    const [byLink, byDevice] = await Promise.all([
      post(token, [['response', 'from the link']]),
      t.rest(`/api/inquiries/${shown.inquiryId}/answer`, {
        method: 'POST',
        token: await t.token(user, 'device'),
        headers: { 'x-device-name': 'phone' },
        body: JSON.stringify({ response: 'from the phone' }),
      }),
    ]);
    expect([byLink.status, byDevice.status].sort()).toEqual([200, 409]);
    const result = structured(await call);
    if (byLink.status === 200) {
      expect(result).toMatchObject({ answer: 'from the link', resolvedBy: { deviceName: 'email link' } });
      expect(await byDevice.json()).toMatchObject({ resolvedBy: { deviceName: 'email link' } });
    } else {
      expect(result).toMatchObject({ answer: 'from the phone', resolvedBy: { deviceName: 'phone' } });
      expect(await byLink.text()).toContain('answered from phone');
    }
  });

  it('refuses expired, forged, foreign and bearer-token links, and a cross-site Origin', async () => {
    const owner = newUser();
    const { call, shown } = await ask(owner, { question: 'Mine?', timeoutMs: 5000 });
    const expired = await link(owner, shown.inquiryId, Date.now() - 5000);
    expect((await open(expired)).status).toBe(410);
    expect((await post(expired, [['response', 'x']])).status).toBe(410);

    const genuine = await link(owner, shown.inquiryId);
    const forged = `${genuine.slice(0, -4)}AAAA`;
    expect((await open(forged)).status).toBe(404);
    // A link for another user names the same inquiry: it is not found for that user.
    const foreign = await link(newUser(), shown.inquiryId);
    expect((await open(foreign)).status).toBe(404);
    expect((await post(foreign, [['response', 'x']])).status).toBe(404);
    // Tokens do not cross over: a device token is no link, and a link is no bearer token.
    expect((await open(await t.token(owner, 'device'))).status).toBe(404);
    const asBearer = await t.rest(`/api/inquiries/${shown.inquiryId}`, { token: genuine });
    expect(asBearer.status).toBe(401);
    // The Host / Origin guard holds here as on every door: another site cannot post the form.
    const crossSite = await open(genuine, {
      method: 'POST',
      headers: { origin: 'https://evil.example' },
      body: new URLSearchParams([['response', 'x']]),
    });
    expect(crossSite.status).toBe(403);
    // Refused as a page a person can read, not as JSON.
    expect(crossSite.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await crossSite.text()).toContain('Origin &quot;https://evil.example&quot; is not allowed');
    // `Origin: null` passes only from the link's own page (a browser sets Sec-Fetch-Site).
    for (const site of ['cross-site', 'same-site', undefined]) {
      const opaque = await open(genuine, {
        method: 'POST',
        headers: { origin: 'null', ...(site ? { 'sec-fetch-site': site } : {}) },
        body: new URLSearchParams([['response', 'x']]),
      });
      expect(opaque.status, site).toBe(403);
      expect(opaque.headers.get('content-type')).toMatch(/^text\/html/);
    }

    const fromItsPage = await open(genuine, {
      method: 'POST',
      headers: { origin: 'null', 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams([['response', 'still mine']]),
    });
    expect(fromItsPage.status).toBe(200);
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'still mine' });
  });
});
