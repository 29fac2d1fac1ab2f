import type { InquiryResult } from '@hitl/protocol';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpClient, type NodeProcess, spawnNode } from '../node-process.js';

/** Finding 6: a critical inquiry never gets a machine answer. */
describe('security: a critical inquiry is never answered by a machine', () => {
  let node: NodeProcess;
  let agent: Client;
  beforeAll(async () => {
    node = await spawnNode({
      HITL_DEVICE_TIMEOUT_MS: '1000',
      HITL_SERVICE_TIMEOUT_MS: '1500',
      HITL_CLIENT_TIMEOUT_MS: '5000',
      HITL_SWEEP_MS: '100',
    });
    agent = await mcpClient(node.url, 'critic');
  });
  afterAll(async () => {
    await agent?.close();
    await node?.kill();
  });

  it('critical + fallback default_answer "yes": silence fails closed, no answer, and says why', async () => {
    const result = await agent.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Wire 10,000 EUR to the new supplier?',
        critical: true,
        defaultAnswer: 'yes',
        fallback: { onTimeout: 'default_answer', onRefusal: 'default_answer' },
      },
    });
    const out = result.structuredContent as InquiryResult;
    expect(out.status).toBe('timed_out');
    expect(out.answer).toBeUndefined();
    expect(out.resolvedBy?.strategy).toBe('fail_closed');
    expect(out.resolvedBy?.rationale).toMatch(/critical/);
    const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
    expect(text).not.toMatch(/\byes\b/);
  });

  it('critical + fallback random over options: still no machine answer', async () => {
    const result = await agent.callTool({
      name: 'send_inquiry',
      arguments: {
        question: 'Which account do I drain?',
        options: ['savings', 'checking'],
        critical: true,
        fallback: { onTimeout: 'random' },
      },
    });
    const out = result.structuredContent as InquiryResult;
    expect(out.answer).toBeUndefined();
    expect(out.resolvedBy?.strategy).toBe('fail_closed');
  });
});
