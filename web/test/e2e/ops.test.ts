import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agent,
  DESKTOP,
  launchChromium,
  openApp,
  openContext,
  overflowX,
  PHONE,
  pendingInquiry,
  screenshot,
  startWebNode,
  structured,
  token,
} from './harness';
import { type PushReceiver, startPushReceiver, vapidEnv } from './push-receiver';

const newUser = () => `u-${randomUUID().slice(0, 8)}`;

describe('ops console in headless Chromium', () => {
  let node: RunningNode;
  let browser: Browser;
  let receiver: PushReceiver;
  const users = [newUser(), newUser()];

  /** Asks through MCP and settles through REST as a device would: answered, refused, device timeout. */
  async function seed(user: string, question: string, settle: 'answer' | 'refuse' | 'timeout') {
    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question, ...(settle === 'timeout' ? { timeoutMs: 1500 } : {}) },
    });
    const deviceToken = await token(node, user, 'device', 'ops-seed');
    const headers = { Authorization: `Bearer ${deviceToken}`, 'content-type': 'application/json' };
    const pending = await pendingInquiry(node, headers, question);
    if (settle !== 'timeout') {
      // A subscribed user's question is pushed before it is answered (else the push is not sent).
      const { inquiryId } = pending;
      if (user === users[1])
        await receiver.next((p) => (p.json as { inquiryId?: string }).inquiryId === inquiryId);
      // time itself is under test: the person takes a moment, so answer times are above zero (bars to draw).
      await new Promise((r) => setTimeout(r, 150));
      const path = `${node.url}/api/inquiries/${pending.inquiryId}/${settle}`;
      const body = settle === 'answer' ? JSON.stringify({ response: 'Blue, please' }) : undefined;
      expect(
        (await fetch(path, { method: 'POST', headers: { ...headers, 'x-device-name': 'Laptop' }, body }))
          .status,
      ).toBe(200);
    }
    const result = structured(await call);
    await mcp.close();
    return result;
  }

  beforeAll(async () => {
    node = await startWebNode({
      HITL_DEVICE_TIMEOUT_MS: '1000',
      HITL_SERVICE_TIMEOUT_MS: '1500',
      HITL_CLIENT_TIMEOUT_MS: '10000',
      ...vapidEnv(),
      HITL_PUSH_ALLOW_HTTP_HOSTS: '127.0.0.1',
    });
    browser = await launchChromium();
    // The second user's phone has Web Push on: the detail of their questions lists the pushes.
    receiver = await startPushReceiver();
    const subscribed = await fetch(`${node.url}/api/push/subscriptions`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${await token(node, users[1]!, 'device', 'Phone')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ ...receiver.subscription, expirationTime: null }),
    });
    expect(subscribed.status).toBe(201);
    const [, , slot] = await Promise.all([
      seed(users[0]!, 'Which colour?', 'answer'),
      seed(users[0]!, 'Gift wrap?', 'refuse'),
      seed(users[1]!, 'Delivery slot?', 'answer'),
      seed(users[1]!, 'Anyone there?', 'timeout'),
    ]);
    await receiver.next((p) => {
      const push = p.json as { type?: string; inquiryId?: string };
      return push.type === 'resolved' && push.inquiryId === slot?.inquiryId;
    });
  });
  afterAll(async () => {
    await browser?.close();
    await node?.close();
    await receiver?.close();
  });

  it('shows outcome and answer-time charts, the history with a detail view, and filters by user', async () => {
    const context = await openContext(browser, node, DESKTOP);
    const ops = await openApp(context, node, `token=${await token(node, 'alice', 'ops')}`);
    const { page } = ops;
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const history = page.getByRole('region', { name: 'Inquiries' });
    const rows = history.locator('tbody tr');
    await rows.nth(3).waitFor();
    expect(page.url()).toBe(`${node.url}/`);

    // Outcomes over time: stacked bars of 2 human answers, 1 refusal, 1 service timeout.
    const outcomes = page.getByRole('figure', { name: 'Outcomes over time' });
    await outcomes.locator('.recharts-bar-rectangle').first().waitFor();
    const legend = await outcomes.locator('.recharts-legend-item-text').allTextContents();
    expect(legend).toEqual([
      'Answered by a human',
      'Device timeout',
      'Service timeout',
      'Refused',
      'Decided by agent',
      'Cancelled',
    ]);
    const answers = page.getByRole('figure', { name: 'Human answer time percentiles' });
    await expect(answers.locator('.tiles dd').last().textContent()).resolves.toBe('2');
    await answers.locator('.recharts-bar-rectangle').first().waitFor();
    await screenshot(page, 'ops-desktop');

    expect(await rows.count()).toBe(4);
    await history.getByRole('link', { name: 'Which colour?' }).click();
    expect(page.url()).toMatch(/\/ops\/inquiries\//);
    const detail = page.getByRole('region', { name: /^Inquiry / });
    await detail.locator('.facts').getByText('Answered on Laptop').waitFor();
    await detail.locator('.facts').getByText('Blue, please').waitFor();
    await detail.locator('.timeline').getByText('ended: Answered on Laptop').waitFor();
    await expect(detail.locator('.timeline li').count()).resolves.toBeGreaterThanOrEqual(4);
    // What push, mail and webhooks did (GET /api/inquiries/:id/channels): none are set up here.
    await detail.getByText('No push, mail, webhook or Slack message was sent for this inquiry.').waitFor();
    await detail.getByRole('button', { name: 'Close' }).click();

    await history.getByLabel('Status').selectOption('refused');
    await history.getByRole('button', { name: 'Apply' }).click();
    await expect(rows.count()).resolves.toBe(1);
    await history.getByText('Declined on Laptop').waitFor();
    await history.getByLabel('Status').selectOption('all');

    await history.getByLabel('User').fill(users[1]!);
    await history.getByRole('button', { name: 'Apply' }).click();
    await page.getByText(`4 inquiries`).waitFor({ state: 'detached' });
    await expect(rows.count()).resolves.toBe(2);
    await history.getByText('Time ran out (the service stopped waiting)').waitFor();

    // This user's questions were pushed: the detail lists each push and what the push service said.
    await history.getByRole('link', { name: 'Delivery slot?' }).click();
    const pushed = page.getByRole('region', { name: /^Inquiry / });
    await pushed.locator('.facts').getByText('Blue, please').waitFor();
    const { origin } = new URL(receiver.subscription.endpoint);
    const channel = (event: string) => pushed.locator('ul.channels > li', { hasText: event });
    for (const event of ['inquiry.created', 'inquiry.resolved']) {
      await channel(event).waitFor();
      const text = await channel(event).textContent();
      expect(text).toContain(`Push ${event} to ${origin}: delivered`);
      expect(text).toContain('answered 201');
    }
    await expect(pushed.locator('ul.channels > li').count()).resolves.toBe(2);
    await pushed.locator('.timeline').getByText(`sent by Push to ${origin}: delivered`).first().waitFor();
    await pushed.getByRole('button', { name: 'Close' }).click();

    // The decision log: a table when the server offers one, a plain note until then.
    const decisions = await fetch(`${node.url}/api/decisions`, {
      headers: { Authorization: `Bearer ${await token(node, 'alice', 'ops')}` },
    });
    const log = page.getByRole('region', { name: 'Decision log' });
    if (decisions.status === 404) await log.getByText('does not offer a decision log').waitFor();
    else await log.getByRole('form', { name: 'Filter decisions' }).waitFor();
    expect(ops.problems.filter((p) => !p.includes('404'))).toEqual([]);
    await context.close();
  });

  it('fits a 360 px phone', async () => {
    const context = await openContext(browser, node, { ...PHONE, viewport: { width: 360, height: 740 } });
    const { page } = await openApp(context, node, `token=${await token(node, 'alice', 'ops')}`);
    await page.locator('.recharts-bar-rectangle').first().waitFor();
    expect(await overflowX(page)).toBe(0);
    await screenshot(page, 'ops-360');
    await context.close();
  });
});
