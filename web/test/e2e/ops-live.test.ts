import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  agent,
  DESKTOP,
  endClosingPause,
  newUser,
  openApp,
  openContext,
  overflowX,
  PHONE,
  pendingInquiry,
  screenshot,
  structured,
  token,
  UNHURRIED_TIERS,
  useWebNode,
} from './harness';

/** Asks through MCP; the call stays held until the inquiry ends. */
async function ask(node: RunningNode, user: string, question: string) {
  const mcp = await agent(node, user);
  const result = mcp
    .callTool({ name: 'send_inquiry', arguments: { question } }, undefined, { timeout: 60_000 })
    .then(structured)
    .finally(() => mcp.close());
  return { result };
}

async function pendingId(node: RunningNode, user: string, question: string): Promise<string> {
  const headers = { Authorization: `Bearer ${await token(node, user, 'device')}` };
  return (await pendingInquiry(node, headers, question)).inquiryId;
}

describe('live ops console in headless Chromium', () => {
  let node: RunningNode;
  let browser: Browser;
  const { keep, openDevice } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node, browser } = started);
  });

  const openOps = async (options: object) => {
    const context = await openContext(browser, node, options);
    keep(context);
    const opened = await openApp(context, node, `token=${await token(node, 'oncall', 'ops', 'On call')}`);
    await opened.page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    return { context, ...opened };
  };
  const row = (page: Page, question: string) =>
    page.getByRole('region', { name: 'Inquiries' }).locator('tbody tr', { hasText: question });

  for (const [label, options] of [
    ['desktop', DESKTOP],
    ['390×844 phone', PHONE],
  ] as const) {
    it(`shows a new inquiry and its answer without a reload (${label})`, async () => {
      const { page, problems } = await openOps(options);
      await page.evaluate(() => {
        (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
      });
      const user = newUser();
      const question = `Ship order ${randomUUID().slice(0, 6)}?`;
      const asked = await ask(node, user, question);
      await row(page, question).getByText('pending').waitFor();
      await page.getByText(/1 pending/).waitFor();

      const id = await pendingId(node, user, question);
      const headers = {
        Authorization: `Bearer ${await token(node, user, 'device')}`,
        'content-type': 'application/json',
        'x-device-name': 'Kitchen tablet',
      };
      // time itself is under test: the person takes a moment, so the log shows more than "0 ms".
      await new Promise((r) => setTimeout(r, 120));
      const answered = await fetch(`${node.url}/api/inquiries/${id}/answer`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ response: 'Yes, ship it' }),
      });
      expect(answered.status).toBe(200);
      await row(page, question).getByText('Answered on Kitchen tablet').waitFor();
      expect((await asked.result).status).toBe('answered');
      // The decision log follows too, with the time the person took (not "0 ms").
      const logged = page
        .getByRole('region', { name: 'Decision log' })
        .locator('tbody tr', { hasText: question });
      await logged.waitFor();
      expect(await logged.locator('td').last().textContent()).not.toMatch(/^0 ms/);
      // Still the same document: nothing reloaded.
      expect(
        await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
      ).toBe(true);
      expect(await overflowX(page)).toBe(0);
      if (options === PHONE) {
        // At 390 px every column of a row is on screen, as a labelled line of a card.
        const cells = await row(page, question)
          .locator('td')
          .evaluateAll((tds) =>
            tds.map((td) => {
              const box = td.getBoundingClientRect();
              const label = getComputedStyle(td, '::before').content;
              return { label, inside: box.left >= 0 && box.right <= window.innerWidth && box.width > 0 };
            }),
          );
        expect(cells.map((c) => c.label)).toEqual([
          '"Asked"',
          '"User"',
          '"Question"',
          '"Status"',
          '"Ended by"',
          '"Answer time"',
        ]);
        expect(cells.every((c) => c.inside)).toBe(true);
      }
      await screenshot(page, `ops-live-${label === 'desktop' ? 'desktop' : '390'}`);
      expect(problems).toEqual([]);
    });
  }

  it('opens an inquiry at its own address, directly, with its timeline', async () => {
    const user = newUser();
    const question = 'Deep link me?';
    const asked = await ask(node, user, question);
    const id = await pendingId(node, user, question);
    const { context } = await openOps(DESKTOP);
    const page = await context.newPage();
    const response = await page.goto(`${node.url}/ops/inquiries/${id}`);
    expect(response?.status()).toBe(200);
    const detail = page.getByRole('region', { name: `Inquiry ${id}` });
    await detail.waitFor();
    await detail
      .locator('.timeline')
      .getByText(/asked by shop assistant/)
      .waitFor();
    await detail.getByRole('button', { name: 'Close' }).click();
    expect(page.url()).toBe(`${node.url}/`);
    await page.goBack();
    await detail.waitFor();
    // An address that names nothing says so.
    await page.goto(`${node.url}/ops/inquiries/inq-none`);
    await page.getByRole('alert').getByText('No inquiry inq-none').waitFor();
    await fetch(`${node.url}/api/inquiries/${id}/cancel`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await token(node, 'oncall', 'ops')}` },
    });
    expect((await asked.result).status).toBe('cancelled');
  });

  it('the timeline says which devices the inquiry was delivered to', async () => {
    const user = newUser();
    const devices = [];
    for (const [name, options] of [
      ['Phone', PHONE],
      ['Laptop', DESKTOP],
    ] as const) {
      devices.push((await openDevice(user, options, { device: name })).page);
    }
    const question = `Which devices ${randomUUID().slice(0, 6)}?`;
    const asked = await ask(node, user, question);
    for (const page of devices) await page.locator('article', { hasText: question }).waitFor();
    const id = await pendingId(node, user, question);

    const { context, problems } = await openOps(DESKTOP);
    const page = await context.newPage();
    await page.goto(`${node.url}/ops/inquiries/${id}`);
    const timeline = page.getByRole('region', { name: `Inquiry ${id}` }).locator('.timeline');
    // Recorded in batches, and re-read while pending: give it the time a loaded machine needs.
    await timeline.getByText('delivered to Phone (live)').waitFor({ timeout: 20_000 });
    await timeline.getByText('delivered to Laptop (live)').waitFor({ timeout: 20_000 });
    const lines = await timeline.locator('li').allTextContents();
    const asking = lines.findIndex((l) => l.includes('asked by shop assistant'));
    const delivered = lines.findIndex((l) => l.includes('delivered to'));
    expect(asking).toBeGreaterThanOrEqual(0);
    expect(delivered).toBeGreaterThan(asking);
    await screenshot(page, 'ops-timeline-devices');
    await fetch(`${node.url}/api/inquiries/${id}/cancel`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${await token(node, 'oncall', 'ops')}` },
    });
    expect((await asked.result).status).toBe('cancelled');
    expect(problems).toEqual([]);
  });

  it('an ops cancel closes the device’s card and returns cancelled to the agent', async () => {
    const user = newUser();
    const device = await openDevice(user, PHONE, { device: 'Phone', clock: true });
    const question = 'Restart the database?';
    const asked = await ask(node, user, question);
    const card = device.page.locator('article', { hasText: question });
    await card.waitFor();

    const { page } = await openOps(DESKTOP);
    await row(page, question).getByRole('link', { name: question }).click();
    const detail = page.getByRole('region', { name: /^Inquiry / });
    await detail.getByRole('button', { name: 'Cancel inquiry…' }).click();
    await detail.getByRole('group', { name: 'Cancel this inquiry?' }).waitFor();
    await detail.getByRole('button', { name: 'Yes, cancel it' }).click();
    await detail.locator('.facts').getByText('Cancelled by an operator').waitFor();
    expect((await asked.result).status).toBe('cancelled');
    await device.page.getByText('Cancelled by an operator').first().waitFor();
    await endClosingPause(device.page);
    await card.waitFor({ state: 'detached', timeout: 15_000 });
    await row(page, question).getByText('cancelled').first().waitFor();
  });
});
