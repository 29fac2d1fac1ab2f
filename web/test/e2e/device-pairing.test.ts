import type { RunningNode } from '@hitl/inquiry';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  agent,
  DESKTOP,
  newUser,
  openContext,
  overflowX,
  PHONE,
  screenshot,
  structured,
  UNHURRIED_TIERS,
  useWebNode,
} from './harness';

const connected = (page: Page) => page.locator('[data-status="connected"]').waitFor();

/** Pairing in headless Chromium: a desktop adds a phone by QR link, then revokes it. */
describe('adding a device by pairing, and revoking it (headless Chromium)', () => {
  let node: RunningNode;
  let browser: Browser;
  const { keep, openDevice } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node, browser } = started);
  });
  const context = async (options: object) => keep(await openContext(browser, node, options));

  /** The desktop's "Add a device" panel: the pairing URL and code it shows. */
  async function addDevice(desktop: Page): Promise<{ url: string; code: string }> {
    await desktop.getByRole('button', { name: 'Devices' }).click();
    await desktop.getByRole('button', { name: 'Add a device' }).click();
    await desktop.getByRole('img', { name: 'QR code of the pairing link' }).waitFor();
    const url = (await desktop.locator('.pairing-url').textContent()) ?? '';
    const code = (await desktop.getByTestId('pairing-code').textContent()) ?? '';
    return { url, code };
  }

  it('a phone claims the QR link, answers the next question; the desktop revokes it and its socket drops', async () => {
    const user = newUser();
    const { page: desktop } = await openDevice(user, DESKTOP, { device: 'Laptop' });
    const pairing = await addDevice(desktop);
    expect(pairing.url).toMatch(new RegExp(`^${node.url}/pair#[2-9A-Z]{8}$`));
    expect(pairing.code.replace('-', '')).toBe(pairing.url.split('#')[1]);
    await screenshot(desktop, 'pairing-desktop');

    // The phone opens the link its camera read.
    const phone = await (await context(PHONE)).newPage();
    await phone.goto(pairing.url);
    await expect(phone.getByLabel('Pairing code').inputValue()).resolves.toBe(pairing.url.split('#')[1]);
    expect(phone.url()).toBe(`${node.url}/pair`);
    await screenshot(phone, 'pairing-phone');
    await phone.getByLabel('Name this device').fill('Phone');
    await phone.getByRole('button', { name: 'Add this device' }).click();
    await connected(phone);
    expect(phone.url()).toBe(`${node.url}/`);
    expect(await overflowX(phone)).toBe(0);
    const phoneToken = (await phone.evaluate(() => localStorage.getItem('hitl.token'))) ?? '';
    expect(phoneToken).toMatch(/^ey/);

    // The next question reaches the phone, which answers it.
    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Which size?', options: ['S', 'M'] },
    });
    const card = phone.locator('article', { hasText: 'Which size?' });
    await card.getByLabel('M').check();
    await card.getByRole('button', { name: 'Answer' }).click();
    const result = structured(await call);
    expect(result).toMatchObject({
      status: 'answered',
      answer: 'M',
      resolvedBy: { kind: 'human', deviceName: 'Phone' },
    });
    await mcp.close();

    // The code worked once: a second phone gets the one answer for wrong, used and expired codes.
    const late = await (await context(PHONE)).newPage();
    await late.goto(pairing.url);
    await late.getByRole('button', { name: 'Add this device' }).click();
    await expect(late.getByRole('alert').textContent()).resolves.toMatch(/did not work/);

    // The desktop's Devices view lists the phone and revokes it after a confirmation.
    await desktop.getByRole('button', { name: 'Done' }).click();
    const phoneRow = desktop.locator('.device-list li', { hasText: 'Phone' });
    await phoneRow.waitFor();
    await desktop
      .locator('.device-list li', { hasText: 'this device' })
      .filter({ hasText: 'Laptop' })
      .waitFor();
    await screenshot(desktop, 'devices-desktop');
    await phoneRow.getByRole('button', { name: 'Revoke Phone' }).click();
    await phoneRow.getByRole('group', { name: 'Revoke Phone?' }).waitFor();
    await phoneRow.getByRole('button', { name: 'Revoke', exact: true }).click();
    await desktop.getByRole('status').filter({ hasText: 'Phone was signed out everywhere' }).waitFor();
    await phoneRow.waitFor({ state: 'detached' });

    // The phone's socket drops and its token is refused.
    await phone.locator('[data-status="rejected"]').waitFor({ timeout: 15_000 });
    const refused = await fetch(`${node.url}/api/inquiries`, {
      headers: { Authorization: `Bearer ${phoneToken}` },
    });
    expect(refused.status).toBe(401);
    await connected(desktop);
  });

  it('a code typed by hand at /pair works too', async () => {
    const user = newUser();
    const { page: desktop } = await openDevice(user, DESKTOP);
    const { code } = await addDevice(desktop);
    const tablet = await (await context(PHONE)).newPage();
    await tablet.goto(`${node.url}/pair`);
    await tablet.getByLabel('Pairing code').fill(code.toLowerCase());
    await tablet.getByLabel('Name this device').fill('Tablet');
    await tablet.getByRole('button', { name: 'Add this device' }).click();
    await connected(tablet);
    await desktop.locator('.device-list li', { hasText: 'Tablet' }).waitFor();
    // The panel that showed the code says it was used: no code, no countdown, a way to make another.
    const panel = desktop.getByRole('region', { name: 'Add a device' });
    await panel.getByRole('status').filter({ hasText: 'The code was used: Tablet was added.' }).waitFor();
    await expect(panel.getByTestId('pairing-code').count()).resolves.toBe(0);
    await expect(panel.getByText(/Expires in/).count()).resolves.toBe(0);
    await panel.getByRole('button', { name: 'Make another code' }).waitFor();
  });
});
