import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningNode } from '@hitl/inquiry';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe';
import { agent, DESKTOP, PHONE, screenshot, structured, UNHURRIED_TIERS, useWebNode } from './harness';

// Two people of one team, each on their own device, and an agent that may ask the team.
const directory = join(mkdtempSync(join(tmpdir(), 'web-team-')), 'directory.json');
writeFileSync(
  directory,
  JSON.stringify({
    users: { ann: {}, bob: {} },
    teams: { owners: { members: ['ann', 'bob'], askers: ['bot'] } },
  }),
);

describe('a two-person approval on two devices, in headless Chromium', () => {
  let node: RunningNode;
  const { openDevice } = useWebNode({ ...UNHURRIED_TIERS, HITL_DIRECTORY_FILE: directory }, (started) => {
    ({ node } = started);
  });

  it('shows "1 of 2 approvals" after the first vote; the second closes both cards saying who approved', async () => {
    const ann = await openDevice('ann', DESKTOP);
    const bob = await openDevice('bob', PHONE);
    const mcp = await agent(node, 'bot');
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Allow "wire" on bank?',
        kind: 'approval',
        audience: { team: 'owners' },
        quorum: 2,
        action: { server: 'bank', tool: 'wire', arguments: { amount: 500 } },
      },
    });
    const annCard = ann.page.locator('article', { hasText: 'wire' });
    const bobCard = bob.page.locator('article', { hasText: 'wire' });
    await annCard.getByText('0 of 2 approvals').waitFor();
    await bobCard.getByText('0 of 2 approvals').waitFor();

    await annCard.getByRole('button', { name: 'Approve' }).click();
    await annCard.getByText('you approved; waiting for 1 more').waitFor();
    expect(await annCard.getByRole('button', { name: 'Approve' }).isVisible()).toBe(false);
    await bobCard.getByText('1 of 2 approvals').waitFor();
    await bobCard.locator('.votes').getByText('ann approved').waitFor();
    expect(await seriousViolations(bob.page)).toEqual([]);
    await screenshot(bob.page, 'quorum-one-of-two-phone');

    await bobCard.getByRole('button', { name: 'Approve' }).click();
    const result = structured(await call);
    expect(result).toMatchObject({ status: 'answered', answer: 'approve', resolvedBy: { userId: 'bob' } });
    expect(result.votes?.map((v) => v.userId)).toEqual(['ann', 'bob']);
    await annCard.locator('.outcome').getByText('by bob').waitFor();
    await bobCard.locator('.outcome').getByText('Answered on this device').waitFor();
    expect([...ann.problems, ...bob.problems]).toEqual([]);
  });
});
