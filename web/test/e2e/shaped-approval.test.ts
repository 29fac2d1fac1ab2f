import type { RunningNode } from '@hitl/inquiry';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe';
import {
  agent,
  newUser,
  overflowX,
  PHONE,
  screenshot,
  structured,
  token,
  UNHURRIED_TIERS,
  useWebNode,
} from './harness';

const SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, description: 'what to delete' },
    recursive: { type: 'boolean' },
  },
  required: ['path'],
};

describe('an approval people shape, in headless Chromium', () => {
  let node: RunningNode;
  const { openDevice } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node } = started);
  });

  it('edits an argument, says why, allows it for 15 minutes, then ends the standing approval (phone, axe clean)', async () => {
    const user = newUser();
    const { page, problems } = await openDevice(user, PHONE);
    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Allow "delete" on files?',
        kind: 'approval',
        action: {
          server: 'files',
          tool: 'delete',
          arguments: { path: '/srv/cache', recursive: true },
          inputSchema: SCHEMA,
        },
        editable: ['path'],
      },
    });
    const card = page.locator('article', { hasText: 'Allow "delete" on files?' });
    await card.waitFor();
    const path = card.getByLabel(/^path/);
    await expect(path.inputValue()).resolves.toBe('/srv/cache');
    // Only the editable name is a field; the other argument is shown, not editable.
    await expect(card.locator('.edit-args input').count()).resolves.toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // An edit the tool's schema refuses is not taken: the node names the field, the card stays.
    await path.fill('');
    await card.getByRole('button', { name: 'Approve' }).click();
    await card
      .getByRole('alert')
      .getByText(/arguments\.path/)
      .waitFor();

    await path.fill('/srv/cache/tmp');
    await card.getByLabel(/^Why/).fill('only the tmp folder');
    await card.getByLabel(/Also allow the same for 15 minutes/).check();
    expect(await seriousViolations(page)).toEqual([]);
    expect(await overflowX(page)).toBe(0);
    await screenshot(page, 'approval-edit-390');
    await card.getByRole('button', { name: 'Approve' }).click();
    expect(structured(await call)).toMatchObject({
      status: 'answered',
      answer: 'approve',
      arguments: { path: '/srv/cache/tmp', recursive: true },
      changed: ['path'],
      reason: 'only the tmp folder',
    });

    // The standing approval shows under Devices with its use count, and ends in one tap.
    await page.getByRole('button', { name: 'Devices' }).click();
    const item = page.locator('.standing-list li');
    await item.waitFor();
    await expect(item.locator('code').textContent()).resolves.toBe('delete on files with any arguments');
    await expect(item.locator('.uses').textContent()).resolves.toBe('0');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'standing-approvals-390');
    await item.getByRole('button', { name: /^End now: delete on files/ }).click();
    await page
      .locator('.standing')
      .getByRole('status')
      .getByText(/^Ended: delete on files/)
      .waitFor();
    await page.getByText('Nothing is allowed without asking.').waitFor();
    const use = await fetch(`${node.url}/api/approvals/standing/use`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${await token(node, user, 'agent')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ server: 'files', tool: 'delete', arguments: { path: '/srv/cache/tmp' } }),
    });
    expect(use.status).toBe(404);
    expect(problems).toEqual([]);
    await mcp.close();
  });

  it('offers no standing approval for a critical action', async () => {
    const user = newUser();
    const { page } = await openDevice(user, PHONE);
    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Allow "wipe" on disks?',
        kind: 'approval',
        critical: true,
        action: { server: 'disks', tool: 'wipe', arguments: { disk: 'sda' } },
      },
    });
    const card = page.locator('article', { hasText: 'Allow "wipe" on disks?' });
    await card.waitFor();
    await expect(card.getByLabel(/Also allow/).count()).resolves.toBe(0);
    await card.getByLabel(/^Why/).fill('never sda');
    await card.getByRole('button', { name: 'Reject' }).click();
    expect(structured(await call)).toMatchObject({ answer: 'reject', reason: 'never sda' });
    await mcp.close();
  });

  it('a question card declines with a reason the agent reads', async () => {
    const user = newUser();
    const { page, problems } = await openDevice(user, PHONE);
    const mcp = await agent(node, user);
    const call = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Which hotel?' } });
    const card = page.locator('article', { hasText: 'Which hotel?' });
    await card.waitFor();
    // Folded away until wanted: the card still has one text box to answer in.
    await expect(card.getByRole('textbox').count()).resolves.toBe(1);
    await card.getByText('Rather not say? Tell the agent why (optional)').click();
    await card.getByLabel(/^Why/).fill('ask my assistant');
    expect(await seriousViolations(page)).toEqual([]);
    await card.getByRole('button', { name: "I'd rather not say" }).click();
    expect(structured(await call)).toMatchObject({ status: 'refused', reason: 'ask my assistant' });
    expect(problems).toEqual([]);
    await mcp.close();
  });
});
