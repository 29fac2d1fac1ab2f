import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  agent,
  DESKTOP,
  launchChromium,
  openApp,
  openContext,
  startWebNode,
  structured,
  token,
} from './harness';

/** Bidi controls, zero-width and other invisible format characters, and C0/C1 controls in `text`. */
function hiddenIn(text: string): string[] {
  return [...text].filter((ch) => {
    const c = ch.codePointAt(0) ?? 0;
    return (
      (c < 0x20 && c !== 0x0a && c !== 0x09) ||
      (c >= 0x7f && c <= 0x9f) ||
      [0xad, 0x61c, 0xfeff].includes(c) ||
      (c >= 0x200b && c <= 0x200f) ||
      (c >= 0x2028 && c <= 0x202e) ||
      (c >= 0x2060 && c <= 0x206f)
    );
  });
}

/** Finding 5: the web page shows bidi and invisible characters as visible escapes. */
describe('security: agent text with bidi and invisible characters in the web terminal', () => {
  let node: RunningNode;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    node = await startWebNode();
    browser = await launchChromium();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await browser?.close();
    await node?.close();
  });
  const openDevice = async (user: string): Promise<Page> => {
    const context = await openContext(browser, node, DESKTOP);
    contexts.push(context);
    const { page } = await openApp(
      context,
      node,
      `token=${await token(node, user, 'device', 'Agent\u202Eevil')}&device=Desk`,
    );
    await page.locator('[data-status="connected"]').waitFor();
    return page;
  };

  it('an approval of invoice\\u202Efdp.exe shows the override as an escape, not as a .pdf', async () => {
    const user = `u-${randomUUID().slice(0, 8)}`;
    const page = await openDevice(user);
    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'May I open invoice\u202Efdp.exe for you?',
        kind: 'approval',
        action: {
          server: 'files\u200B',
          tool: 'open\u2066_file',
          arguments: { file: 'invoice\u202Efdp.exe' },
        },
      },
    });
    const card = page.locator('article', { hasText: 'May I open' });
    await card.waitFor();
    const shown = (await card.textContent()) ?? '';
    expect(hiddenIn(shown)).toEqual([]);
    expect(shown).toContain('invoice\\u202efdp.exe');
    await expect(card.locator('pre.json').textContent()).resolves.toContain(
      '"file": "invoice\\u202efdp.exe"',
    );
    await expect(card.locator('dd code').allTextContents()).resolves.toEqual([
      'files\\u200b',
      'open\\u2066_file',
    ]);
    await card.getByRole('button', { name: 'Reject' }).click();
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'reject' });
    await mcp.close();
  });

  it('a question, its options and its form prompts show hidden characters as escapes; the answer is the real option', async () => {
    const user = `u-${randomUUID().slice(0, 8)}`;
    const page = await openDevice(user);
    const mcp = await agent(node, user);
    const option = 'keep\u202E.txt';
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Which file\u200B do I keep?\u2067 (plain text)',
        format: 'text',
        options: [option, 'delete all\u0007'],
      },
    });
    const card = page.locator('article', { hasText: 'Which file' });
    await card.waitFor();
    const shown = (await card.textContent()) ?? '';
    expect(hiddenIn(shown)).toEqual([]);
    expect(shown).toContain('Which file\\u200b do I keep?\\u2067');
    expect(shown).toContain('keep\\u202e.txt');
    expect(shown).toContain('delete all\\x07');
    await card.getByText('keep\\u202e.txt').click();
    await card.getByRole('button', { name: 'Answer', exact: true }).click();
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: option });
    await mcp.close();
  });
});
