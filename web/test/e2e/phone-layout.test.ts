import type { RunningNode } from '@hitl/inquiry';
import { PairingClaimResultSchema, PairingSchema } from '@hitl/protocol';
import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  agent,
  newUser,
  openApp,
  openContext,
  PHONE,
  screenshot,
  structured,
  token,
  UNHURRIED_TIERS,
  useWebNode,
} from './harness';

/** A common Android phone (Pixel 7 and the like): where the history badge once made the page 451 px wide. */
const PHONE_412 = { ...PHONE, viewport: { width: 412, height: 915 } };

// Long texts with long unbroken words, as people and agents write them.
const LONG_WORD = 'Supercalifragilisticexpialidocious-and-then-some-more-characters';
const LONG_QUESTION = `Should the quarterly report include ${LONG_WORD} in its appendix, or should it go to the wiki?`;
const LONG_OPTION = `Keep it in the appendix as ${LONG_WORD} with a footnote`;
const LONG_DEVICE = 'Grandmothers-extraordinarily-long-named-kitchen-tablet-by-the-window';
const LONG_ANSWER = `Deliver-it-to-the-neighbour-at-number-twenty-seven-${LONG_WORD}`;

/**
 * The page is no wider than the phone's screen. Measured against the viewport the test set, not
 * `innerWidth`: a mobile browser widens its layout viewport to fit content that overflows (the page
 * then reads 451 px wide with `innerWidth` 451 on a 412 px screen, and the person scrolls sideways).
 */
async function expectNoSideScroll(page: Page): Promise<void> {
  const screen = page.viewportSize()?.width ?? 0;
  const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(scrollWidth, `the page is ${scrollWidth} px wide on a ${screen} px screen`).toBeLessThanOrEqual(
    screen,
  );
}

/**
 * The gap, in px, between the last letter of `before` and the first letter of `after` where they meet in
 * `selector`'s text: what a reader sees as a space ("Term : black" when a badge's padding sits there).
 */
function gapBetween(page: Page, selector: string, before: string, after: string): Promise<number> {
  return page.evaluate(
    ({ selector, before, after }) => {
      const root = document.querySelector(selector);
      if (!root) throw new Error(`no ${selector}`);
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      const nodes: Text[] = [];
      while (walker.nextNode()) nodes.push(walker.currentNode as Text);
      const rectOf = (text: string, last: boolean) => {
        for (const node of nodes) {
          const at = last ? node.data.lastIndexOf(text) : node.data.indexOf(text);
          if (at === -1) continue;
          const range = document.createRange();
          const offset = last ? at + text.length - 1 : at;
          range.setStart(node, offset);
          range.setEnd(node, offset + 1);
          return range.getBoundingClientRect();
        }
        throw new Error(`"${text}" is not in ${selector}`);
      };
      return rectOf(after, false).left - rectOf(before, true).right;
    },
    { selector, before, after },
  );
}

describe('long texts on a 412×915 phone (headless Chromium)', () => {
  let node: RunningNode;
  let browser: Browser;
  const { keep, openDevice } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node, browser } = started);
  });

  it('the pending card, the history, the devices panel and the ops console fit the width', async () => {
    const user = newUser();
    const { page, problems, token: deviceToken } = await openDevice(user, PHONE_412, { device: LONG_DEVICE });
    const mcp = await agent(node, user);

    // 1. Nobody answers: this page's device timer ends it, and the fallback's default answer decides.
    const fallback = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: `${LONG_QUESTION} (fallback)`,
        timeoutMs: 1500,
        defaultAnswer: LONG_ANSWER,
        fallback: { onTimeout: 'default_answer' },
      },
    });
    expect(structured(await fallback)).toMatchObject({
      answer: LONG_ANSWER,
      resolvedBy: { kind: 'decision-agent', strategy: 'default_answer', trigger: 'device-timer' },
    });

    // 2. Answered on another device with a short name ("Term"), over REST.
    const short = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Which colour?' } });
    const shortCard = page.locator('article', { hasText: 'Which colour?' });
    await shortCard.waitFor();
    const answered = await fetch(
      `${node.url}/api/inquiries/${await shortCard.getAttribute('data-inquiry-id')}/answer`,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${deviceToken}`,
          'content-type': 'application/json',
          'x-device-name': 'Term',
        },
        body: JSON.stringify({ response: 'black' }),
      },
    );
    expect(answered.status).toBe(200);
    expect(structured(await short)).toMatchObject({ status: 'answered', answer: 'black' });

    // 3. One stays pending: long question, long options, long context.
    void mcp
      .callTool({
        name: 'send_inquiry',
        arguments: {
          question: LONG_QUESTION,
          options: [LONG_OPTION, `${LONG_OPTION} (second)`],
          context: { note: LONG_ANSWER },
        },
      })
      .catch(() => undefined);
    await page.locator('article', { hasText: LONG_OPTION }).waitFor();

    const history = page.getByRole('region', { name: 'History' });
    const items = history.locator('li');
    await expect.poll(() => items.count(), { timeout: 15_000 }).toBe(2);
    await history
      .getByText('Decided by the fallback (default_answer) after the device timeout', { exact: false })
      .waitFor();
    await history.getByText('Answered on Term').waitFor();
    await screenshot(page, 'phone-412-terminal');
    await expectNoSideScroll(page);
    // "Answered on Term: black" reads without a space before the colon.
    const termItem = `.history-list li[data-inquiry-id="${await items.nth(0).getAttribute('data-inquiry-id')}"] .history-outcome`;
    expect(await gapBetween(page, termItem, 'Term', ':')).toBeLessThan(2);
    await screenshot(page, 'phone-412-terminal');

    // The devices panel, with a paired device of a long name.
    const pairing = PairingSchema.parse(
      await (
        await fetch(`${node.url}/api/pairings`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${deviceToken}` },
        })
      ).json(),
    );
    const claimed = await fetch(`${node.url}/api/pairings/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: pairing.code, deviceName: LONG_DEVICE }),
    });
    PairingClaimResultSchema.parse(await claimed.json());
    await page.getByRole('button', { name: 'Devices' }).click();
    await page.locator('.device-list li', { hasText: LONG_DEVICE }).first().waitFor();
    await expect.poll(() => page.locator('.device-list li', { hasText: LONG_DEVICE }).count()).toBe(2);
    await page.getByRole('button', { name: 'Add a device' }).click();
    await page.getByTestId('pairing-code').waitFor();
    await expectNoSideScroll(page);
    await screenshot(page, 'phone-412-devices');
    expect(problems).toEqual([]);

    // The ops console lists the same inquiries, the fallback's badge among them.
    const ops = await openApp(
      keep(await openContext(browser, node, PHONE_412)),
      node,
      `token=${await token(node, 'ops-person', 'ops')}`,
    );
    await ops.page
      .getByText('Decided by the fallback (default_answer) after the device timeout')
      .first()
      .waitFor();
    await ops.page.locator('.recharts-bar-rectangle').first().waitFor();
    await expectNoSideScroll(ops.page);
    await screenshot(ops.page, 'phone-412-ops');
    await mcp.close();
  });
});
