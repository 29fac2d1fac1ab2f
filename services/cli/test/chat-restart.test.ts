import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InquiryResult } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { type NodeProcess, spawnNode, token } from './node-process.js';

/** An SDK client that takes form elicitation and answers each with `answer`; `sessionId` resumes one. */
async function chatClient(url: string, user: string, answer: string, sessionId?: string) {
  const client = new Client(
    { name: 'Restart Chat', version: '1.0.0' },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { answer } }));
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${await token(user, 'agent')}` } },
    ...(sessionId ? { sessionId } : {}),
  });
  await client.connect(transport);
  return { client, transport };
}

describe('MCP sessions on the embedded SQLite store across kill -9 (real processes, one state dir)', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'hitl-chat-restart-'));
  const started: NodeProcess[] = [];
  const start = async () => {
    const node = await spawnNode({ HITL_STATE_DIR: stateDir });
    started.push(node);
    return node;
  };
  afterAll(async () => {
    await Promise.all(started.map((node) => node.kill('SIGKILL')));
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('a session opened before the crash still serves, and still asks in the chat, after the restart', async () => {
    const first = await start();
    const before = await chatClient(first.url, 'chatty', 'before');
    const sessionId = before.transport.sessionId as string;
    expect(sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const asked = await before.client.callTool({ name: 'send_inquiry', arguments: { question: 'Before?' } });
    expect(asked.structuredContent).toMatchObject({ status: 'answered', answer: 'before' });
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');

    const second = await start();
    // The same session id, resumed without a new initialize, on the restarted node.
    const after = await chatClient(second.url, 'chatty', 'after', sessionId);
    expect(after.transport.sessionId).toBe(sessionId);
    const result = await after.client.callTool(
      { name: 'send_inquiry', arguments: { question: 'After?' } },
      CallToolResultSchema,
    );
    expect(result.structuredContent as InquiryResult).toMatchObject({
      status: 'answered',
      answer: 'after',
      resolvedBy: { kind: 'human', deviceName: 'Restart Chat (chat)' },
    });
    // Another user's token never finds it.
    const stranger = await fetch(`${second.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token('someone-else', 'agent')}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(stranger.status).toBe(404);
    await after.client.close();
  });
});
