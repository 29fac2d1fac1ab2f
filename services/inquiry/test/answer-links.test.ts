import { randomUUID } from 'node:crypto';
import type { InquiryResult } from '@hitl/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestDevice, type TestNode } from './harness.js';

/** DESIGN §6.3 answer links: `/a/<link token>`, one inquiry, answered once, GET changes nothing. */

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;

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
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
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

    expect((await post(genuine, [['response', 'still mine']])).status).toBe(200);
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'still mine' });
  });
});
