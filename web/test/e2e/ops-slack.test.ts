import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningNode } from '@hitl/inquiry';
import { BOT_TOKEN, type FakeSlack, SIGNING_SECRET, startFakeSlack } from '@hitl/inquiry/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  agent,
  DESKTOP,
  launchChromium,
  openApp,
  openContext,
  pendingInquiry,
  SCREENSHOTS,
  screenshot,
  startWebNode,
  token,
} from './harness';

/**
 * The ops console shows what Slack did for an inquiry: a node with Slack on (a local fake of Slack's
 * Web API), a question posted to a person's DM and answered from a device, then the detail view in
 * headless Chromium lists the post and the final update, and its timeline says "sent by Slack".
 */
describe('ops console: Slack deliveries', () => {
  let node: RunningNode;
  let browser: Browser;
  let fake: FakeSlack;
  let dir: string;

  beforeAll(async () => {
    fake = await startFakeSlack();
    dir = await mkdtemp(join(tmpdir(), 'hitl-web-slack-'));
    const directory = join(dir, 'directory.json');
    await writeFile(
      directory,
      JSON.stringify({ users: { kim: { name: 'Kim', slack: 'U0KIM', notify: ['slack'] } } }),
    );
    node = await startWebNode({
      HITL_DIRECTORY_FILE: directory,
      HITL_SLACK_BOT_TOKEN: BOT_TOKEN,
      HITL_SLACK_SIGNING_SECRET: SIGNING_SECRET,
      HITL_SLACK_API_URL: fake.apiUrl,
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await node?.close();
    await fake?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the Slack post and its final update, on the detail and its timeline', async () => {
    const mcp = await agent(node, 'kim');
    const call = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Send the invoice today?' } });
    const headers = {
      Authorization: `Bearer ${await token(node, 'kim', 'device', 'Laptop')}`,
      'content-type': 'application/json',
    };
    const { inquiryId } = await pendingInquiry(node, headers, 'Send the invoice today?');
    await vi.waitFor(() => expect(fake.callsOf('chat.postMessage')).toHaveLength(1));
    const answered = await fetch(`${node.url}/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      headers: { ...headers, 'x-device-name': 'Laptop' },
      body: JSON.stringify({ response: 'yes' }),
    });
    expect(answered.status).toBe(200);
    await call;
    await mcp.close();
    await vi.waitFor(() => expect(fake.callsOf('chat.update')).toHaveLength(1));

    const context = await openContext(browser, node, DESKTOP);
    const { page } = await openApp(context, node, `token=${await token(node, 'ops', 'ops')}`);
    await page
      .getByRole('region', { name: 'Inquiries' })
      .getByRole('link', { name: 'Send the invoice today?' })
      .click();
    const detail = page.getByRole('region', { name: /^Inquiry / });
    const channel = (event: string) => detail.locator('ul.channels > li', { hasText: event });
    await channel('inquiry.resolved').waitFor();
    expect(await channel('inquiry.created').textContent()).toContain(
      'Slack inquiry.created to slack:U0KIM: delivered',
    );
    expect(await channel('inquiry.resolved').textContent()).toContain(
      'Slack inquiry.resolved to slack:D0KIM: delivered',
    );
    await detail.locator('.timeline').getByText('sent by Slack to slack:U0KIM: delivered').waitFor();
    await screenshot(page, 'ops-slack-deliveries');
    await detail.screenshot({ path: join(SCREENSHOTS, 'ops-slack-detail.png') });
    await context.close();
  });
});
