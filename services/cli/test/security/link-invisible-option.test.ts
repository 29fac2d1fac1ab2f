import { LinkTokens } from '@hitl/auth';
import type { Inquiry, InquiryResult } from '@hitl/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, mcpClient, type NodeProcess, SECRET, spawnNode, token } from '../node-process.js';

/**
 * Round 3, item 10: an option with an invisible character is shown escaped on the answer-link page
 * (so a person sees it), but the form posts the real option, so it can be chosen.
 */

const links = new LinkTokens(SECRET);
const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;
const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};
/** An attribute's value as a browser reads it: named and numeric character references decoded. */
const decodeAttribute = (value: string) =>
  value
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);

describe('security: the answer-link page posts the real option, shown escaped', { timeout: 60_000 }, () => {
  let node: NodeProcess;
  let agent: Client;
  beforeAll(async () => {
    node = await spawnNode({
      HITL_DEVICE_TIMEOUT_MS: '30000',
      HITL_SERVICE_TIMEOUT_MS: '40000',
      HITL_CLIENT_TIMEOUT_MS: '50000',
    });
    agent = await mcpClient(node.url, 'shipper');
  });
  afterAll(async () => {
    await agent?.close();
    await node?.kill();
  });

  it('"Ship tomorrow\\u200b" is shown with a visible escape and can be chosen', async () => {
    const options = ['Ship today', 'Ship tomorrow\u200b'];
    const call = agent.callTool({
      name: 'send_inquiry',
      arguments: { question: 'When do we ship?', options },
    });
    call.catch(() => undefined);
    const headers = { authorization: `Bearer ${await token('shipper', 'device')}` };
    let inquiryId: string | undefined;
    await eventually(async () => {
      const listed = await fetch(`${node.url}/api/inquiries?status=pending`, { headers });
      inquiryId = ((await listed.json()) as { items: Inquiry[] }).items[0]?.inquiryId;
      return inquiryId !== undefined;
    });
    const link = await links.sign({
      userId: 'shipper',
      inquiryId: inquiryId ?? '',
      channel: 'email',
      expiresAt: Date.now() + 600_000,
    });
    const html = await (await fetch(`${node.url}/a/${link}`)).text();
    // The person sees the invisible character as an escape, never as nothing; the page's source
    // holds none (the radio's value carries it as a character reference).
    expect(html).not.toContain('\u200b');
    expect(html).toMatch(/Ship tomorrow\\u200b/i);
    const values = [...html.matchAll(/<input type="radio" name="response" value="([^"]*)"/g)].map((m) =>
      decodeAttribute(m[1] ?? ''),
    );
    expect(values).toEqual(options);

    const posted = await fetch(`${node.url}/a/${link}`, {
      method: 'POST',
      body: new URLSearchParams([
        ['response', values[1] ?? ''],
        ['action', 'answer'],
      ]),
    });
    expect(posted.status).toBe(200);
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'Ship tomorrow\u200b' });
  });
});
