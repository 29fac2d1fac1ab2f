import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { agent, DESKTOP, PHONE, screenshot, structured, token, UNHURRIED_TIERS, useWebNode } from './harness';

/**
 * Answer links (mail, webhook) used the way a person uses them: opened in a real browser, an option
 * chosen, the form submitted. Chromium decides which `Origin` it sends from the page's
 * `Referrer-Policy`, so only a real browser proves the form is accepted.
 */

const newUser = () => `link-${randomUUID().slice(0, 8)}`;

describe('answer links submitted in headless Chromium', () => {
  let node: RunningNode;
  let browser: Browser;
  const { keep } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node, browser } = started);
  });

  /** `user`'s agent asks `args`; resolves with the held call and a mail link to the inquiry. */
  async function ask(user: string, args: Record<string, unknown>) {
    const mcp = await agent(node, user);
    const call = mcp.callTool({ name: 'send_inquiry', arguments: args });
    const headers = { Authorization: `Bearer ${await token(node, user, 'device')}` };
    let inquiryId: string | undefined;
    while (!inquiryId) {
      const listed = await fetch(`${node.url}/api/inquiries?status=pending`, { headers });
      inquiryId = ((await listed.json()) as { items: { inquiryId: string }[] }).items[0]?.inquiryId;
    }
    const link = await node.links.sign({
      userId: user,
      inquiryId,
      channel: 'email',
      expiresAt: Date.now() + 600_000,
    });
    return { call, url: `${node.url}/a/${link}`, close: () => mcp.close() };
  }

  async function open(url: string, options: object): Promise<Page> {
    const page = await keep(await browser.newContext(options)).newPage();
    await page.goto(url);
    return page;
  }

  it('a question: choose an option (one with an invisible character) and send it', async () => {
    const user = newUser();
    const options = ['Ship today', 'Ship tomorrow\u200b'];
    const { call, url, close } = await ask(user, { question: 'When do we ship?', options });
    const page = await open(url, PHONE);
    // The option is shown with its invisible character made visible, and posts the real option.
    await page.getByRole('radio', { name: 'Ship tomorrow\\u200b' }).check();
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor();
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'Ship tomorrow\u200b' });

    // Opened again: closed, one heading, what was answered, by whom and when.
    await page.goto(url);
    await page.getByRole('heading', { name: 'This question is closed' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    const closed = await page.locator('main').textContent();
    expect(closed).toContain('Answer: Ship tomorrow\\u200b');
    expect(closed).toContain(`answered from email link by ${user}`);
    expect(closed).toMatch(/ on \w{3}, \d{2} \w{3} \d{4}/);
    await screenshot(page, 'answer-link-closed');
    await close();
  });

  it('a form: fill the fields and send them', async () => {
    const user = newUser();
    const { call, url, close } = await ask(user, {
      question: 'Order details?',
      questions: [
        { id: 'qty', prompt: 'How many?', kind: 'number', required: true },
        { id: 'wrap', prompt: 'Gift wrap?', kind: 'boolean' },
        { id: 'note', prompt: 'A note for the card', kind: 'text' },
      ],
    });
    const page = await open(url, DESKTOP);
    await page.getByRole('spinbutton', { name: /How many\?/ }).fill('3');
    await page.getByRole('group', { name: 'Gift wrap?' }).getByRole('radio', { name: 'yes' }).check();
    await page.getByRole('textbox', { name: 'A note for the card' }).fill('Happy birthday');
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor();
    expect(structured(await call)).toMatchObject({
      status: 'answered',
      answer: { qty: 3, wrap: true, note: 'Happy birthday' },
    });
    await close();
  });

  it('an approval: approve it', async () => {
    const user = newUser();
    const { call, url, close } = await ask(user, {
      question: 'Pay 120 EUR to the printer?',
      kind: 'approval',
    });
    const page = await open(url, PHONE);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Thank you' }).waitFor();
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'approve' });
    await close();
  });

  it('a refused post shows a page, not JSON: the second tab of an answered link', async () => {
    const user = newUser();
    const { call, url, close } = await ask(user, { question: 'Restart the queue?', kind: 'approval' });
    const first = await open(url, DESKTOP);
    const second = await open(url, DESKTOP);
    await first.getByRole('button', { name: 'Reject' }).click();
    await first.getByRole('heading', { name: 'Thank you' }).waitFor();
    await second.getByRole('button', { name: 'Approve' }).click();
    await second.getByRole('heading', { name: 'Already answered' }).waitFor();
    expect(await second.locator('main').textContent()).toContain('Answer: reject');
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'reject' });
    await close();
  });
});
