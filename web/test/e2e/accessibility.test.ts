import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe';
import { agent, DESKTOP, openApp, openContext, PHONE, token, UNHURRIED_TIERS, useWebNode } from './harness';

const newUser = () => `u-${randomUUID().slice(0, 8)}`;

describe('axe-core finds no serious or critical violations (headless Chromium)', () => {
  let node: RunningNode;
  let browser: Browser;
  const { keep, openDevice } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node, browser } = started);
  });
  const context = async (options: object) => {
    const c = await openContext(browser, node, options);
    keep(c);
    return c;
  };

  for (const [label, options] of [
    ['desktop', DESKTOP],
    ['390×844 phone', PHONE],
  ] as const) {
    it(`the terminal with a question, an approval and its history (${label})`, async () => {
      const user = newUser();
      const { page } = await openDevice(user, options);
      const mcp = await agent(node, user);
      const question = mcp.callTool({
        name: 'send_inquiry',
        arguments: { question: 'Which size?', options: ['S', 'M', 'L'], context: 'Summer party' },
      });
      const approval = mcp.callTool({
        name: 'send_inquiry',
        arguments: {
          question: 'Allow "drop_rows" on warehouse?',
          kind: 'approval',
          critical: true,
          confidence: 0.2,
          action: { server: 'warehouse', tool: 'drop_rows', arguments: { rows: Array(80).fill('row') } },
        },
      });
      await page.locator('article', { hasText: 'Which size?' }).waitFor();
      await page.locator('article', { hasText: 'drop_rows' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.locator('article', { hasText: 'drop_rows' }).getByRole('button', { name: 'Reject' }).click();
      await page.locator('article', { hasText: 'Which size?' }).getByLabel('M').check();
      await page
        .locator('article', { hasText: 'Which size?' })
        .getByRole('button', { name: 'Answer' })
        .click();
      await Promise.all([question, approval]);
      await page.getByRole('region', { name: 'History' }).locator('li').nth(1).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await mcp.close();
    });
  }

  it('the answer-link page', async () => {
    const user = newUser();
    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Which day?', options: ['Monday', 'Tuesday'] },
    });
    const headers = { Authorization: `Bearer ${await token(node, user, 'device')}` };
    let inquiryId: string | undefined;
    while (!inquiryId) {
      const page = (await (await fetch(`${node.url}/api/inquiries?status=pending`, { headers })).json()) as {
        items: { inquiryId: string }[];
      };
      inquiryId = page.items[0]?.inquiryId;
    }
    const link = await node.links.sign({
      userId: user,
      inquiryId,
      channel: 'email',
      expiresAt: Date.now() + 600_000,
    });
    for (const options of [DESKTOP, PHONE]) {
      const page = await (await context(options)).newPage();
      await page.goto(`${node.url}/a/${link}`);
      await page.getByText('Which day?').first().waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    }
    await fetch(`${node.url}/api/inquiries/${inquiryId}/cancel`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await token(node, 'oncall', 'ops')}` },
    });
    await call;
    await mcp.close();
  });

  for (const [label, options] of [
    ['desktop', DESKTOP],
    ['390×844 phone', PHONE],
  ] as const) {
    it(`the ops console, its detail view and the cancel confirmation (${label})`, async () => {
      const user = newUser();
      const mcp = await agent(node, user);
      const question = `Rotate the keys (${label})?`;
      const call = mcp.callTool({ name: 'send_inquiry', arguments: { question } });
      const { page } = await openApp(
        await context(options),
        node,
        `token=${await token(node, 'oncall', 'ops')}`,
      );
      await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
      const history = page.getByRole('region', { name: 'Inquiries' });
      await history.getByRole('link', { name: question }).waitFor();
      await page.locator('.recharts-surface').first().waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await history.getByRole('link', { name: question }).click();
      const detail = page.getByRole('region', { name: /^Inquiry / });
      await detail.getByRole('button', { name: 'Cancel inquiry…' }).click();
      await detail.getByRole('button', { name: 'Yes, cancel it' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await detail.getByRole('button', { name: 'Yes, cancel it' }).click();
      await call;
      await mcp.close();
    });
  }

  for (const [label, options] of [
    ['desktop', DESKTOP],
    ['390×844 phone', PHONE],
  ] as const) {
    it(`the Devices view, Add a device with its QR code, the revoke confirmation and /pair (${label})`, async () => {
      const user = newUser();
      const other = await token(node, user, 'device', 'Old phone');
      // The other device is listed once it was seen.
      await fetch(`${node.url}/api/devices`, { headers: { Authorization: `Bearer ${other}` } });
      const { page } = await openDevice(user, options);
      await page.getByRole('button', { name: 'Devices' }).click();
      await page.locator('.device-list li', { hasText: 'Old phone' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Revoke Old phone' }).click();
      await page.getByRole('group', { name: 'Revoke Old phone?' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Add a device' }).click();
      await page.getByRole('img', { name: 'QR code of the pairing link' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      const link = (await page.locator('.pairing-url').textContent()) ?? '';
      const pair = await (await context(options)).newPage();
      await pair.goto(link);
      await pair.getByLabel('Pairing code').waitFor();
      expect(await seriousViolations(pair)).toEqual([]);
      await pair.getByLabel('Pairing code').fill('WRONG234');
      await pair.getByRole('button', { name: 'Add this device' }).click();
      await pair.getByRole('alert').waitFor();
      expect(await seriousViolations(pair)).toEqual([]);
    });
  }
});
