import type { RunningNode } from '@hitl/inquiry';
import { describe, expect, it } from 'vitest';
import {
  agent,
  DESKTOP,
  newUser,
  overflowX,
  PHONE,
  screenshot,
  structured,
  UNHURRIED_TIERS,
  useWebNode,
} from './harness';

describe('an approval card says who asked and why, in headless Chromium', () => {
  let node: RunningNode;
  const { openDevice } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node } = started);
  });

  for (const [label, options] of [
    ['desktop', DESKTOP],
    ['390×844 phone', PHONE],
  ] as const) {
    it(`names the agent, shows the reason up front, folds long arguments, offers Approve / Reject only (${label})`, async () => {
      const user = newUser();
      const { page, problems } = await openDevice(user, options);
      const mcp = await agent(node, user);
      const rows = Array.from({ length: 60 }, (_, i) => ({ id: `row-${i}`, note: 'to be removed for good' }));
      const call = mcp.callTool({
        name: 'send_inquiry',
        arguments: {
          question: 'Allow "drop_rows" on warehouse?',
          kind: 'approval',
          confidence: 0.3,
          action: { server: 'warehouse', tool: 'drop_rows', arguments: { rows } },
          // What the approval proxy writes: why the call was put to a person.
          context: { why: 'the server does not mark it non-destructive (destructiveHint: false)' },
        },
      });
      const card = page.locator('article', { hasText: 'drop_rows' });
      await card.waitFor();
      await card.locator('.asker').getByText('Approval asked by shop assistant for').waitFor();
      expect(await card.locator('.asker').textContent()).toBe(`Approval asked by shop assistant for ${user}`);
      const why = card.locator('.why');
      await expect(why.locator('li').allTextContents()).resolves.toEqual([
        'Destructive: the server does not mark it non-destructive (destructiveHint: false)',
        'Low confidence: confidence 0.30',
      ]);
      // The reason comes before the action and the buttons.
      const order = await card.evaluate((el) =>
        [...el.querySelectorAll('.why, dl.action, .buttons')].map((n) => n.className),
      );
      expect(order).toEqual(['why', 'action', 'buttons']);
      // Long arguments fold, with their size; opening the fold shows them all.
      const fold = card.locator('details.fold');
      await expect(fold.locator('summary').textContent()).resolves.toMatch(
        /^Show all arguments \(\d+\.\d KB, \d+ lines\)$/,
      );
      await expect(fold.locator('pre.json').isVisible()).resolves.toBe(false);
      await fold.locator('summary').click();
      await expect(fold.locator('pre.json').textContent()).resolves.toBe(JSON.stringify({ rows }, null, 2));
      await expect(card.getByRole('button').allTextContents()).resolves.toEqual(['Approve', 'Reject']);
      expect(await overflowX(page)).toBe(0);
      await screenshot(page, `approval-card-${label === 'desktop' ? 'desktop' : '390'}`);
      await card.getByRole('button', { name: 'Reject' }).click();
      expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'reject' });
      await card.getByRole('status').getByText('Answered on this device: Rejected').waitFor();
      expect(problems).toEqual([]);
      await mcp.close();
    });
  }
});
