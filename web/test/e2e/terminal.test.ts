import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  agent,
  DESKTOP,
  endClosingPause,
  installPageClock,
  launchChromium,
  openApp,
  openContext,
  overflowX,
  PHONE,
  screenshot,
  startWebNode,
  structured,
  token,
} from './harness';

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const card = (page: Page, text: string) => page.locator('article', { hasText: text });
const connected = (page: Page) => page.locator('[data-status="connected"]').waitFor();

const FORM = [
  { id: 'size', prompt: 'Size', kind: 'choice', options: ['S', 'M', 'L'], required: true },
  { id: 'colour', prompt: 'Colours you like', kind: 'multi', options: ['red', 'blue', 'green'] },
  { id: 'budget', prompt: 'Budget in EUR', kind: 'number', required: true },
  { id: 'gift', prompt: 'Gift wrap?', kind: 'boolean' },
  { id: 'note', prompt: 'Anything else?', kind: 'text' },
];

describe('device terminal in headless Chromium', () => {
  let node: RunningNode;
  let browser: Browser;
  beforeAll(async () => {
    // Tier 1 is 15 s; the countdown test asks with a shorter timeoutMs, which scales it down.
    node = await startWebNode({
      HITL_DEVICE_TIMEOUT_MS: '15000',
      HITL_SERVICE_TIMEOUT_MS: '25000',
      HITL_CLIENT_TIMEOUT_MS: '40000',
    });
    browser = await launchChromium();
  });
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });
  const openDevice = async (user: string, name: string, options: object) => {
    const context = await openContext(browser, node, options);
    contexts.push(context);
    await installPageClock(context);
    const opened = await openApp(context, node, `token=${await token(node, user, 'device')}&device=${name}`);
    await connected(opened.page);
    return opened;
  };

  it('desktop and phone both show a form; the phone answers; the desktop card closes; the agent gets it', async () => {
    const user = newUser();
    const desktop = await openDevice(user, 'Desktop', DESKTOP);
    const phone = await openDevice(user, 'Phone', PHONE);
    // The token left the address bar but stays with the page.
    expect(phone.page.url()).toBe(`${node.url}/`);
    expect(await phone.page.evaluate(() => localStorage.getItem('hitl.token'))).toMatch(/^ey/);
    await expect(phone.page.getByText('No questions waiting').isVisible()).resolves.toBe(true);

    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Which **shirt** should I order for you?',
        format: 'markdown',
        questions: FORM,
        defaultAnswer: { size: 'M' },
        context: 'Shopping for the summer party.',
      },
    });
    const onDesktop = card(desktop.page, 'Which shirt');
    const onPhone = card(phone.page, 'Which shirt');
    await Promise.all([onDesktop.waitFor(), onPhone.waitFor()]);
    await expect(onPhone.locator('strong', { hasText: 'shirt' }).count()).resolves.toBe(1);
    await expect(onPhone.getByRole('radio', { name: 'M' }).isChecked()).resolves.toBe(true);
    await expect(onPhone.getByRole('timer').textContent()).resolves.toMatch(/^0:1\d left$/);
    expect(
      await desktop.page.evaluate(() => (window as unknown as { __notifications: string[] }).__notifications),
    ).toEqual(['Question from shop assistant']);
    await screenshot(desktop.page, 'terminal-desktop');
    await screenshot(phone.page, 'terminal-phone');
    expect(await overflowX(phone.page)).toBe(0);

    // Required budget missing: the server's rule, shown next to the field.
    await onPhone.getByRole('button', { name: 'Answer' }).tap();
    await onPhone.getByText('An answer is required.').waitFor();
    const budget = onPhone.getByLabel('Budget in EUR');
    await expect(budget.getAttribute('aria-invalid')).resolves.toBe('true');
    await budget.fill('forty');
    await onPhone.getByText('Enter a number.').waitFor();
    await budget.fill('40');
    await onPhone.getByRole('radio', { name: 'L' }).tap();
    await onPhone.getByRole('checkbox', { name: 'blue' }).tap();
    await onPhone.getByRole('checkbox', { name: 'green' }).tap();
    await onPhone.getByRole('radio', { name: 'Yes' }).tap();
    await onPhone.getByLabel('Anything else?').fill('Thanks!');
    await onPhone.getByLabel('Anything else?').press('Enter');

    await onDesktop.getByText('Answered on Phone').waitFor();
    await endClosingPause(desktop.page);
    await onDesktop.waitFor({ state: 'detached', timeout: 10_000 });
    const result = structured(await call);
    expect(result).toMatchObject({
      status: 'answered',
      answer: { size: 'L', colour: ['blue', 'green'], budget: 40, gift: true, note: 'Thanks!' },
      resolvedBy: { kind: 'human', deviceName: 'Phone' },
    });
    await onPhone.getByText('Answered on this device').waitFor();
    await endClosingPause(phone.page);
    await onPhone.waitFor({ state: 'detached', timeout: 10_000 });
    expect([...desktop.problems, ...phone.problems]).toEqual([]);
    await mcp.close();
  });

  it('"I\'d rather not say" refuses: the agent reads refused by this device', async () => {
    const user = newUser();
    const desktop = await openDevice(user, 'Desktop', DESKTOP);
    const mcp = await agent(node, user);
    const call = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'What is your budget?' } });
    const asked = card(desktop.page, 'What is your budget?');
    await asked.getByRole('button', { name: "I'd rather not say" }).click();
    await asked.getByText('Declined on this device').waitFor();
    expect(structured(await call)).toMatchObject({
      status: 'refused',
      resolvedBy: { kind: 'human', deviceName: 'Desktop' },
    });
    await endClosingPause(desktop.page);
    await asked.waitFor({ state: 'detached' });
    await mcp.close();
  });

  it('the countdown reaches the device deadline and the device reports it, even with a skewed clock', async () => {
    const user = newUser();
    // This computer's clock runs 10 minutes fast: an uncorrected timer would fire at once and be refused.
    const skewed = await openContext(browser, node, DESKTOP);
    contexts.push(skewed);
    await skewed.addInitScript(() => {
      const realNow = Date.now.bind(Date);
      Date.now = () => realNow() + 10 * 60_000;
    });
    const desktop = await openApp(skewed, node, `token=${await token(node, user, 'device')}&device=Desktop`);
    await connected(desktop.page);
    const mcp = await agent(node, user);
    const started = Date.now();
    // timeoutMs 5 s scales tier 1 from 15 s (of 25 s) to 3 s.
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Quick: tea?', timeoutMs: 5000 },
    });
    const asked = card(desktop.page, 'Quick: tea?');
    await expect(asked.getByRole('timer').textContent()).resolves.toMatch(/^0:0[1-3] left$/);
    await asked.getByText('Time ran out on this device').waitFor({ timeout: 8000 });
    const result = structured(await call);
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({
      status: 'timed_out',
      resolvedBy: { kind: 'device-timer', deviceName: 'Desktop' },
    });
    // The device timer ended it (resolvedBy says so), not the 5 s hold; time itself is under test only as
    // the lower bound: the device's 3 s tier, never earlier.
    expect(elapsed).toBeGreaterThanOrEqual(2800);
    await mcp.close();
  });

  it('markdown and script injection in a question is rendered inert', async () => {
    const user = newUser();
    const desktop = await openDevice(user, 'Desktop', DESKTOP);
    const requests: string[] = [];
    desktop.page.on('request', (r) => requests.push(r.url()));
    const mcp = await agent(node, user);
    const question = [
      'Hello <img src=x onerror="alert(1)"> there <script>alert(2)</script>',
      '',
      '[click](javascript:alert(3)) ![pixel](http://127.0.0.1:9/pixel.png) [docs](https://example.com/help)',
      '',
      '<iframe src="javascript:alert(4)"></iframe> <a href="javascript:alert(5)">raw link</a>',
    ].join('\n');
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question,
        format: 'markdown',
        questions: [
          {
            id: 'q',
            prompt: '<img src=y onerror=alert(6)> pick',
            kind: 'choice',
            options: ['<b>bold</b>', 'plain'],
          },
        ],
      },
    });
    const asked = card(desktop.page, 'Hello');
    await asked.waitFor();
    // time itself is under test: no script runs (no dialog opens) for a while after it shows.
    await desktop.page.waitForTimeout(500);
    expect(desktop.dialogs).toEqual([]);
    expect(await asked.locator('img, script, iframe, object, embed').count()).toBe(0);
    expect(await desktop.page.locator('a[href^="javascript"], [onerror]').count()).toBe(0);
    // The person sees exactly what the agent sent, as text.
    await asked.getByText('<script>alert(2)</script>').waitFor();
    await asked.getByText('<img src=y onerror=alert(6)> pick').waitFor();
    await asked.getByText('(javascript:alert(3))').waitFor();
    await asked.getByText('[image: pixel]').waitFor();
    const safe = asked.getByRole('link', { name: 'docs' });
    await expect(safe.getAttribute('rel')).resolves.toContain('noopener');
    expect(
      requests.filter((u) => u.includes(':9/') || u.includes('example.com') || u.endsWith('/x')),
    ).toEqual([]);
    expect(desktop.page.url()).toBe(`${node.url}/`);
    expect(desktop.problems).toEqual([]);
    await asked.getByRole('button', { name: "I'd rather not say" }).click();
    expect(structured(await call).status).toBe('refused');
    await mcp.close();
  });

  it('an approval shows backend, tool and exact arguments at 360 px, and is approved with the keyboard', async () => {
    const user = newUser();
    const narrow = await openDevice(user, 'Small phone', { ...PHONE, viewport: { width: 360, height: 740 } });
    const mcp = await agent(node, user);
    const args = { invoiceIds: ['INV-3', 'INV-4', 'INV-5'], reason: 'duplicates', dryRun: false };
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'May I delete these 3 invoices?',
        kind: 'approval',
        critical: true,
        action: { server: 'billing', tool: 'delete_invoices', arguments: args },
      },
    });
    const asked = card(narrow.page, 'May I delete');
    await asked.waitFor();
    await expect(asked.locator('dd code').allTextContents()).resolves.toEqual(['billing', 'delete_invoices']);
    await expect(asked.locator('pre.json').textContent()).resolves.toBe(JSON.stringify(args, null, 2));
    await asked.locator('.badge.critical').waitFor();
    await asked.locator('.why').getByText('Critical').waitFor();
    expect(await overflowX(narrow.page)).toBe(0);
    await screenshot(narrow.page, 'terminal-approval-360');

    // Keyboard only: Tab until Approve has focus, then Enter.
    for (let i = 0; i < 20; i++) {
      await narrow.page.keyboard.press('Tab');
      if ((await narrow.page.evaluate(() => document.activeElement?.textContent)) === 'Approve') break;
    }
    await narrow.page.keyboard.press('Enter');
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'approve' });
    await asked.getByText('Answered on this device').waitFor();
    await mcp.close();
  });
});
