import type { RunningNode } from '@hitl/inquiry';
import type { AuditRecordsPage } from '@hitl/protocol';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { agent, DESKTOP, newUser, structured, token, UNHURRIED_TIERS, useWebNode } from './harness';

describe('a passkey approval in the real web terminal (headless Chromium, CDP virtual authenticator)', () => {
  let node: RunningNode;
  let browser: Browser;
  const { keep } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node, browser } = started);
  });

  it('registers a passkey on this device, then approves with it: the only approve the card offers', async () => {
    const user = newUser();
    const deviceToken = await token(node, user, 'device', 'laptop');
    const context = keep(await browser.newContext(DESKTOP));
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    // A platform authenticator with user verification, as a laptop's fingerprint reader would be.
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    // The relying party is http://localhost:<port> (browsers refuse WebAuthn on a bare IP).
    const port = new URL(node.url).port;
    await page.goto(`http://localhost:${port}/?token=${deviceToken}`);
    await page.locator('[data-status="connected"]').waitFor();

    await page.getByRole('button', { name: 'Devices' }).click();
    const passkeys = page.getByRole('region', { name: 'Passkeys' });
    await passkeys.getByText('No passkey yet.').waitFor();
    await passkeys.getByRole('button', { name: 'Add a passkey on this device' }).click();
    await passkeys.locator('.passkey-list li').first().waitFor();
    const listed = (await (
      await fetch(`${node.url}/api/passkeys`, { headers: { authorization: `Bearer ${deviceToken}` } })
    ).json()) as {
      items: { id: string; deviceName?: string }[];
    };
    expect(listed.items).toHaveLength(1);
    await page.getByRole('button', { name: 'Back to your questions' }).click();

    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Pay invoice 42?',
        kind: 'approval',
        requirePasskey: true,
        action: { server: 'billing', tool: 'pay', arguments: { invoice: 42, amount: 1200 } },
      },
    });
    const card = page.locator('article', { hasText: 'Pay invoice 42?' });
    await card.waitFor();
    await expect(card.getByRole('button').allTextContents()).resolves.toEqual([
      'Approve with passkey',
      'Reject',
    ]);
    await card.getByRole('button', { name: 'Approve with passkey' }).click();
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'approve' });
    // The authenticator signed twice: the registration and this approval.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]?.signCount).toBeGreaterThan(0);
    const ops = await token(node, 'auditor', 'ops');
    const page1 = (await (
      await fetch(`${node.url}/api/audit/records?limit=1000`, { headers: { authorization: `Bearer ${ops}` } })
    ).json()) as AuditRecordsPage;
    expect(page1.items.at(-1)?.record).toMatchObject({
      type: 'answer',
      answer: 'approve',
      passkey: listed.items[0]?.id,
    });
    expect(problems).toEqual([]);
    await mcp.close();
  });
});
