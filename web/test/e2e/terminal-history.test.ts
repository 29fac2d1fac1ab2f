import type { RunningNode } from '@hitl/inquiry';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  agent,
  DESKTOP,
  endClosingPause,
  newUser,
  overflowX,
  PHONE,
  screenshot,
  structured,
  token,
  UNHURRIED_TIERS,
  useWebNode,
} from './harness';

const card = (page: Page, text: string) => page.locator('article', { hasText: text });

describe('the device history in headless Chromium', () => {
  let node: RunningNode;
  const { openDevice } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node } = started);
  });

  for (const [label, options] of [
    ['desktop', DESKTOP],
    ['390×844 phone', PHONE],
  ] as const) {
    it(`lists both answers with what, where and when; the closing card says what was answered (${label})`, async () => {
      const user = newUser();
      const { page, problems } = await openDevice(user, options, { device: 'Phone', clock: true });
      const history = page.getByRole('region', { name: 'History' });
      await history.getByText('Nothing answered yet.').waitFor();

      const mcp = await agent(node, user);
      // One answered here, in the page.
      const first = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Which day suits you?' } });
      const asked = card(page, 'Which day suits you?');
      await asked.getByRole('textbox').fill('Tuesday');
      await asked.getByRole('button', { name: 'Answer' }).click();
      await asked.getByRole('status').getByText('Answered on this device: Tuesday').waitFor();
      expect(structured(await first)).toMatchObject({ status: 'answered', answer: 'Tuesday' });

      // One answered on another device (REST as "Laptop"): this card says where and what, then closes.
      const second = mcp.callTool({
        name: 'send_inquiry',
        arguments: { question: 'Pick a size', options: ['S', 'M', 'L'] },
      });
      const other = card(page, 'Pick a size');
      await other.waitFor();
      const id = await other.getAttribute('data-inquiry-id');
      const answered = await fetch(`${node.url}/api/inquiries/${id}/answer`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${await token(node, user, 'device')}`,
          'content-type': 'application/json',
          'x-device-name': 'Laptop',
        },
        body: JSON.stringify({ response: 'M' }),
      });
      expect(answered.status).toBe(200);
      await other.getByRole('status').getByText('Answered on Laptop: M').waitFor();
      expect(structured(await second)).toMatchObject({ status: 'answered', answer: 'M' });

      const items = history.locator('li');
      await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(2);
      expect(await items.nth(0).textContent()).toMatch(
        /Pick a size.*Answered on Laptop: M.*asked by shop assistant/,
      );
      expect(await items.nth(1).textContent()).toMatch(
        /Which day suits you\?.*Answered on this device: Tuesday/,
      );
      await expect(items.nth(0).locator('time').getAttribute('datetime')).resolves.toMatch(/^\d{4}-/);
      await endClosingPause(page);
      await other.waitFor({ state: 'detached', timeout: 15_000 });
      expect(await overflowX(page)).toBe(0);
      await screenshot(page, `terminal-history-${label === 'desktop' ? 'desktop' : '390'}`);
      expect(problems).toEqual([]);
      await mcp.close();
    });
  }
});
