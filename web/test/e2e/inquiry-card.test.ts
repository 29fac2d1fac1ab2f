import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { RunningNode } from '@hitl/inquiry';
import type { InquiryResult } from '@hitl/protocol';
import { getToolUiResourceUri, isToolVisibilityAppOnly } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Frame, Page } from 'playwright-core';
import { build } from 'vite';
import { beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe';
import { agent, DESKTOP, newUser, openContext, structured, UNHURRIED_TIERS, useWebNode } from './harness';

const HOST_ENTRY = fileURLToPath(new URL('./card-host/host.ts', import.meta.url));

/** The test host's script: ext-apps' AppBridge and its wiring, bundled for the browser. */
async function hostScript(): Promise<string> {
  const out = await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, lib: { entry: HOST_ENTRY, formats: ['iife'], name: 'cardHost' }, minify: false },
  });
  const [bundle] = (Array.isArray(out) ? out : [out]) as { output: { code?: string }[] }[];
  return bundle?.output[0]?.code ?? '';
}

/** The host page, the card in its frame, wired to `client`; `opened` collects the links the card opens. */
async function hostCard(
  page: Page,
  script: string,
  client: Client,
  html: string,
  input: Record<string, unknown>,
  result: CallToolResult,
) {
  const opened: string[] = [];
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.exposeFunction('hostCallTool', (params: CallToolRequest['params']) => client.callTool(params));
  await page.exposeFunction('hostOpenLink', (url: string) => void opened.push(url));
  await page.setContent(
    `<!doctype html><html lang="en"><head><title>Host</title></head><body><main><h1>Chat</h1></main><script>${script}</script></body></html>`,
  );
  await page.evaluate(
    ([h, i, r]) => (window as unknown as { startCard(...a: unknown[]): Promise<void> }).startCard(h, i, r),
    [html, input, result] as const,
  );
  const frame = await waitForFrame(page);
  return { frame, opened, requests };
}

async function waitForFrame(page: Page): Promise<Frame> {
  const selector = 'iframe[title="Inquiry card"]';
  await page.frameLocator(selector).locator('main.card-app').waitFor();
  const frame = await (await page.waitForSelector(selector)).contentFrame();
  if (!frame) throw new Error('the card frame went away');
  return frame;
}

describe('the inquiry card (MCP Apps) in a host built on ext-apps, in headless Chromium', () => {
  let node: RunningNode;
  let browser: Browser;
  let script: string;
  const { keep } = useWebNode(UNHURRIED_TIERS, (started) => {
    ({ node, browser } = started);
  });
  beforeAll(async () => {
    script = await hostScript();
  });

  it('shows the question as the terminal does, answers it through answer_inquiry, and the waiting call ends with it', async () => {
    const user = newUser();
    const mcp = await agent(node, user);
    const { tools } = await mcp.listTools();
    const byName = (name: string) => tools.find((t) => t.name === name) ?? { _meta: undefined };
    expect(getToolUiResourceUri(byName('send_inquiry'))).toBe('ui://hitl/inquiry-card');
    expect(getToolUiResourceUri(byName('get_inquiry'))).toBe('ui://hitl/inquiry-card');
    expect(byName('send_inquiry')._meta?.['ui/resourceUri']).toBe('ui://hitl/inquiry-card');
    expect(isToolVisibilityAppOnly(byName('answer_inquiry'))).toBe(true);
    expect((await mcp.listResources()).resources).toEqual([
      expect.objectContaining({ uri: 'ui://hitl/inquiry-card', mimeType: 'text/html;profile=mcp-app' }),
    ]);
    const [content] = (await mcp.readResource({ uri: 'ui://hitl/inquiry-card' })).contents;
    const html = String((content as { text?: string }).text);
    expect(html).toBe(
      await readFile(fileURLToPath(new URL('../../dist/inquiry-card.html', import.meta.url)), 'utf8'),
    );

    const input = {
      question: 'Which **size**\u202E?',
      format: 'markdown',
      options: ['S', 'M', 'L'],
      answerWithinMs: 600_000,
      timeoutMs: 1000,
    };
    const asked = (await mcp.callTool({ name: 'send_inquiry', arguments: input })) as CallToolResult;
    expect(structured(asked)).toMatchObject({ status: 'pending' });
    const cardToken = asked._meta?.['hitl/cardToken'] as string;
    expect(cardToken).toMatch(/^hitl-c1\./);
    // Only _meta carries it: never what the model reads.
    expect(JSON.stringify(asked.content)).not.toContain(cardToken);
    expect(JSON.stringify(asked.structuredContent)).not.toContain(cardToken);
    const { inquiryId } = structured(asked);
    const waiting = mcp.callTool(
      { name: 'get_inquiry', arguments: { inquiryId, waitMs: 45_000 } },
      undefined,
      { timeout: 60_000 },
    );

    const context = keep(await openContext(browser, node, DESKTOP));
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    const { frame, requests } = await hostCard(page, script, mcp, html, input, asked);
    const card = frame.locator(`article[data-inquiry-id="${inquiryId}"]`);
    await card.waitFor();
    expect(await card.locator('strong').filter({ hasText: 'size' }).count()).toBe(1);
    expect(await card.textContent()).toContain('\\u202e');
    expect(await card.getByRole('timer').count()).toBe(1);
    expect(await seriousViolations(frame)).toEqual([]);
    await card.getByRole('radio', { name: 'M' }).check();
    await card.getByRole('button', { name: 'Answer' }).click();
    const ended = structured((await waiting) as CallToolResult) as InquiryResult;
    expect(ended).toMatchObject({
      status: 'answered',
      answer: 'M',
      resolvedBy: { kind: 'human', userId: user, deviceName: 'Inquiry card (chat)' },
    });
    await card.getByRole('status').filter({ hasText: 'Answered on this device' }).waitFor();
    // Single use: the token answers nothing more.
    const again = (await mcp.callTool({
      name: 'answer_inquiry',
      arguments: { cardToken, response: 'L' },
    })) as CallToolResult;
    expect(again.isError).toBe(true);
    // The card loaded nothing from anywhere (the host page itself is set, not fetched).
    expect(
      requests.filter((url) => !url.startsWith('data:') && url !== 'about:blank' && url !== 'about:srcdoc'),
    ).toEqual([]);
    expect(problems).toEqual([]);
    await mcp.close();
  });

  it('never approves: an approval opens its page in the browser, and answer_inquiry refuses it', async () => {
    const user = newUser();
    const mcp = await agent(node, user);
    const input = {
      question: 'Delete the backups?',
      kind: 'approval',
      answerWithinMs: 600_000,
      timeoutMs: 1000,
    };
    const asked = (await mcp.callTool({ name: 'send_inquiry', arguments: input })) as CallToolResult;
    const { inquiryId } = structured(asked);
    const cardToken = asked._meta?.['hitl/cardToken'] as string;
    const [content] = (await mcp.readResource({ uri: 'ui://hitl/inquiry-card' })).contents;
    const context = keep(await openContext(browser, node, DESKTOP));
    const page = await context.newPage();
    const { frame, opened } = await hostCard(
      page,
      script,
      mcp,
      String((content as { text?: string }).text),
      input,
      asked,
    );
    const card = frame.locator(`article[data-inquiry-id="${inquiryId}"]`);
    await card.waitFor();
    expect(await card.getByRole('button', { name: /^approve/i }).count()).toBe(0);
    await card.getByRole('button', { name: 'Open in the browser to decide' }).click();
    await expect.poll(() => opened).toEqual([`${node.url}/i/${inquiryId}`]);
    expect(await seriousViolations(frame)).toEqual([]);
    const refused = (await mcp.callTool({
      name: 'answer_inquiry',
      arguments: { cardToken, response: 'approve' },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    const forged = (await mcp.callTool({
      name: 'answer_inquiry',
      arguments: { cardToken: `${cardToken}x`, response: 'approve' },
    })) as CallToolResult;
    expect(forged.isError).toBe(true);
    const still = (await mcp.callTool({ name: 'get_inquiry', arguments: { inquiryId } })) as CallToolResult;
    expect(structured(still)).toMatchObject({ status: 'pending' });
    await mcp.close();
  });
});
