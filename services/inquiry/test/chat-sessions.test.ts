import { eventually, sleep } from '@hitl/store/testing';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatNode, chatClient, postInSession, startChatNode } from './chat-harness.js';
import { newUser } from './decision-helpers.js';

const initialize = (capabilities: Record<string, unknown>, protocolVersion = LATEST_PROTOCOL_VERSION) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities, clientInfo: { name: 'Raw Chat', version: '0.1' } },
});

const listTools = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

describe('MCP sessions, only for clients that take elicitation', () => {
  let node: ChatNode;
  beforeAll(async () => {
    node = await startChatNode({ HITL_MCP_SESSION_TTL_MS: '1500' });
  });
  afterAll(() => node?.close());

  it('a client that declares elicitation gets a session id; one that does not stays sessionless', async () => {
    const token = await node.token(newUser(), 'agent');
    const withElicitation = await postInSession(node.url, token, initialize({ elicitation: {} }));
    expect(withElicitation.status).toBe(200);
    expect(withElicitation.headers.get('mcp-session-id')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    await withElicitation.text();
    for (const capabilities of [{}, { sampling: {} }, { roots: { listChanged: true } }]) {
      const plain = await postInSession(node.url, token, initialize(capabilities));
      expect(plain.status).toBe(200);
      expect(plain.headers.get('mcp-session-id')).toBeNull();
      await plain.text();
    }
    // Protocol 2025-03-26 has no elicitation: no session either.
    const old = await postInSession(node.url, token, initialize({ elicitation: {} }, '2025-03-26'));
    expect(old.headers.get('mcp-session-id')).toBeNull();
    await old.text();
  });

  it("serves a live session, and refuses an unknown one or another user's with 404", async () => {
    const user = newUser();
    const token = await node.token(user, 'agent');
    const opened = await postInSession(node.url, token, initialize({ elicitation: { form: {} } }));
    const session = opened.headers.get('mcp-session-id') as string;
    await opened.text();
    expect((await postInSession(node.url, token, listTools, session)).status).toBe(200);
    const unknown = await postInSession(node.url, token, listTools, 'no-such-session-id-0000000000000');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'not_found' } } });
    const other = await node.token(newUser(), 'agent');
    expect((await postInSession(node.url, other, listTools, session)).status).toBe(404);
    // The session is untouched by the foreign attempt.
    expect((await postInSession(node.url, token, listTools, session)).status).toBe(200);
  });

  it('DELETE /mcp ends a session (204), after which it is 404; without a session DELETE and GET stay 405', async () => {
    const token = await node.token(newUser(), 'agent');
    const opened = await postInSession(node.url, token, initialize({ elicitation: {} }));
    const session = opened.headers.get('mcp-session-id') as string;
    await opened.text();
    const headers = { authorization: `Bearer ${token}`, 'mcp-session-id': session };
    expect((await fetch(`${node.url}/mcp`, { method: 'GET', headers })).status).toBe(405);
    const other = await node.token(newUser(), 'agent');
    const foreign = { authorization: `Bearer ${other}`, 'mcp-session-id': session };
    expect((await fetch(`${node.url}/mcp`, { method: 'DELETE', headers: foreign })).status).toBe(404);
    expect((await fetch(`${node.url}/mcp`, { method: 'DELETE', headers })).status).toBe(204);
    expect((await postInSession(node.url, token, listTools, session)).status).toBe(404);
    expect((await fetch(`${node.url}/mcp`, { method: 'DELETE', headers })).status).toBe(404);
    const bare = { authorization: `Bearer ${token}` };
    expect((await fetch(`${node.url}/mcp`, { method: 'DELETE', headers: bare })).status).toBe(405);
    expect((await fetch(`${node.url}/mcp`, { method: 'DELETE' })).status).toBe(405);
  });

  it('a session unused past its lifetime is 404; one in use is renewed and lives on', async () => {
    const token = await node.token(newUser(), 'agent');
    const open = async () => {
      const opened = await postInSession(node.url, token, initialize({ elicitation: {} }));
      await opened.text();
      return opened.headers.get('mcp-session-id') as string;
    };
    const idle = await open();
    const busy = await open();
    // Time itself is under test: the lifetime is 1.5 s; the busy session is used every 300 ms.
    for (let i = 0; i < 8; i += 1) {
      await sleep(300); // time itself is under test: use within the lifetime
      expect((await postInSession(node.url, token, listTools, busy)).status).toBe(200);
    }
    expect((await postInSession(node.url, token, listTools, idle)).status).toBe(404);
  });

  it('the official SDK client keeps its session across calls and ends it with terminateSession', async () => {
    const token = await node.token(newUser(), 'agent');
    const { client, transport } = await chatClient(node.url, token);
    expect(transport.sessionId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('send_inquiry');
    const session = transport.sessionId as string;
    await transport.terminateSession();
    expect((await postInSession(node.url, token, listTools, session)).status).toBe(404);
    await client.close();
    const plain = await chatClient(node.url, token, { capabilities: {} });
    expect(plain.transport.sessionId).toBeUndefined();
    await plain.client.close();
  });

  it('logs the refusal of a bad session id', async () => {
    const token = await node.token(newUser(), 'agent');
    await postInSession(node.url, token, listTools, 'x'.repeat(40));
    await eventually(() =>
      node.lines.some((l) => String(l.msg).includes('unknown, expired or foreign MCP session')),
    );
  });
});
