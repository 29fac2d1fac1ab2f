import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openApp, overflowX, PHONE, screenshot, startWebNode, token } from './harness';

/**
 * "Enable notifications" when it cannot work: the reason is said in the live region, and iPhone
 * Safari in a tab gets the Home Screen note. (The working path is web-push.test.ts.)
 */
const IPHONE = {
  ...PHONE,
  userAgent:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
};

describe('the Enable notifications button when push cannot work (headless Chromium)', () => {
  let node: RunningNode;
  let browser: Browser;
  beforeAll(async () => {
    node = await startWebNode();
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
  const open = async (options: object) => {
    const context = await browser.newContext(options);
    contexts.push(context);
    const user = `u-${randomUUID().slice(0, 8)}`;
    const { page } = await openApp(context, node, `token=${await token(node, user, 'device')}&device=Phone`);
    await page.locator('[data-status="connected"]').waitFor();
    return { page, context };
  };

  it('blocked notifications: the button says so and stays off', async () => {
    const { page } = await open(PHONE);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
      timeout: 30_000,
    });
    // No permission was granted: headless Chromium answers the request with "denied" (or "default").
    await page.getByRole('button', { name: 'Enable notifications' }).click();
    const status = page
      .getByRole('status')
      .filter({ hasText: /Notifications (are blocked|were not allowed)/ });
    await status.waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Enable notifications' }).waitFor();
    expect(await page.getByRole('button', { name: 'Turn off notifications' }).count()).toBe(0);
    expect(await overflowX(page)).toBe(0);
  });

  it('iPhone Safari in a tab: the Home Screen note, tied to the button, and said again on a click', async () => {
    const { page } = await open(IPHONE);
    const button = page.getByRole('button', { name: 'Enable notifications' });
    const note = page.locator('#push-note');
    await expect(note.textContent()).resolves.toMatch(/Add to Home Screen/);
    await expect(button.getAttribute('aria-describedby')).resolves.toBe('push-note');
    await button.click();
    await page.getByRole('status').filter({ hasText: 'tap Share, then "Add to Home Screen"' }).waitFor();
    expect(await overflowX(page)).toBe(0);
    await screenshot(page, 'push-iphone-note');
  });
});
