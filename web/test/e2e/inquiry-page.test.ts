import type { RunningNode } from '@hitl/inquiry';
import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe';
import {
  agent,
  DESKTOP,
  newUser,
  openContext,
  pendingInquiry,
  structured,
  token,
  UNHURRIED_TIERS,
  useWebNode,
} from './harness';

// `/i/<inquiryId>`: the signed-in page of one inquiry that a chat sends a person to (URL-mode
// elicitation, the inquiry card's "open in the browser"): never a pre-authenticated link.
describe('the page of one inquiry, /i/<inquiryId>', () => {
  let node: RunningNode;
  let browser: Browser;
  const { keep } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node, browser } = started);
  });

  it('asks the person to sign in, then shows that question focused; answered there, the call ends', async () => {
    const user = newUser();
    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Wire the money?', kind: 'approval', critical: true },
    });
    const device = await token(node, user, 'device');
    const inquiry = await pendingInquiry(node, { authorization: `Bearer ${device}` }, 'Wire the money?');
    const context = keep(await openContext(browser, node, DESKTOP));
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    // No token in the address: the page asks for the device's sign-in, as any page of the terminal.
    await page.goto(`${node.url}/i/${inquiry.inquiryId}`);
    await page.getByRole('textbox').first().waitFor();
    expect(await page.locator(`article[data-inquiry-id="${inquiry.inquiryId}"]`).count()).toBe(0);
    // Signed in (the device link carries the token), the same address shows the card, focused.
    await page.goto(`${node.url}/i/${inquiry.inquiryId}?token=${device}`);
    const card = page.locator(`article[data-inquiry-id="${inquiry.inquiryId}"]`);
    await card.waitFor();
    await expect.poll(() => card.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(new URL(page.url()).pathname).toBe(`/i/${inquiry.inquiryId}`);
    expect(new URL(page.url()).search).toBe('');
    expect(await seriousViolations(page)).toEqual([]);
    await card
      .getByRole('button', { name: /approve/i })
      .first()
      .click();
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'approve' });
    expect(problems).toEqual([]);
    await mcp.close();
  });

  it("says how an ended question ended, and that another person's is not there", async () => {
    const user = newUser();
    const mcp = await agent(node, user);
    const call = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Lunch?' } });
    const device = await token(node, user, 'device');
    const inquiry = await pendingInquiry(node, { authorization: `Bearer ${device}` }, 'Lunch?');
    await fetch(`${node.url}/api/inquiries/${inquiry.inquiryId}/answer`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${device}`,
        'content-type': 'application/json',
        'x-device-name': 'Laptop',
      },
      body: JSON.stringify({ response: 'yes please' }),
    });
    expect(structured(await call)).toMatchObject({ status: 'answered' });
    const context = keep(await openContext(browser, node, DESKTOP));
    const page = await context.newPage();
    await page.goto(`${node.url}/i/${inquiry.inquiryId}?token=${device}`);
    await page.getByRole('status').filter({ hasText: 'This question has ended.' }).waitFor();
    expect(await page.getByText('yes please').count()).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);
    const stranger = await token(node, newUser(), 'device');
    await page.goto(`${node.url}/i/${inquiry.inquiryId}?token=${stranger}`);
    await page
      .getByRole('status')
      .filter({ hasText: `There is no question ${inquiry.inquiryId} for you` })
      .waitFor();
    await mcp.close();
  });
});
