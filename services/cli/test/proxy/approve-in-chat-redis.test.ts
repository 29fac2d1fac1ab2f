import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Inquiry } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  connectDevice,
  ledgerBackend,
  startTestProxy,
  startWorld,
  type TestDevice,
  type TestProxy,
  textOf,
  type World,
} from './harness.js';

/**
 * `approveInChat` across two proxy nodes on one real `redis-server`: the session opened at one is
 * admitted at the other, and the chat's response, POSTed to the node that did not write the
 * elicitation, approves the call held on the first.
 */
let world: World;
let dir: string;
let a: TestProxy;
let b: TestProxy;
let ledger: Awaited<ReturnType<typeof ledgerBackend>>;
let phone: TestDevice;
let client: Client | undefined;

beforeAll(async () => {
  world = await startWorld('redis');
  dir = await mkdtemp(join(tmpdir(), 'proxy-chat-redis-'));
  ledger = await ledgerBackend(dir);
  const policy = { tools: { jot: { approveInChat: true } } };
  a = await startTestProxy(world, ledger.spec, policy);
  b = await startTestProxy(world, ledger.spec, policy);
  phone = await connectDevice(world, 'erin');
}, 30_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  phone?.socket.disconnect();
  await a?.close();
  await b?.close();
  await world?.close();
  await rm(dir, { recursive: true, force: true });
});

it('a response that reaches the other proxy node answers the approval held on the first', async () => {
  client = new Client({ name: 'Two Node Chat', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  let elicitationId: string | number | undefined;
  let elicited!: () => void;
  const elicitedNow = new Promise<void>((resolve) => {
    elicited = resolve;
  });
  // The client's own reply is a dismissal (nothing changes); the accept goes to the other node below.
  client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
    elicitationId = extra.requestId;
    elicited();
    return { action: 'cancel' };
  });
  const token = await world.node.tokens.sign({ sub: 'erin', role: 'agent', name: 'test agent' });
  const transport = new StreamableHTTPClientTransport(new URL(`${a.proxy.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const call = client.callTool({ name: 'jot', arguments: { text: 'two nodes' } }, undefined, {
    onprogress: () => undefined,
    resetTimeoutOnProgress: true,
  }) as Promise<CallToolResult>;
  const { inquiryId } = await phone.nextInquiry();
  await elicitedNow;
  const post = (body: unknown, sessionId: string) =>
    fetch(`${b.proxy.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
      },
      body: JSON.stringify(body),
    });
  const accept = {
    jsonrpc: '2.0',
    id: elicitationId,
    result: { action: 'accept', content: { decision: 'approve' } },
  };
  // An unknown session id is 404 at the other node too; the real one is admitted there (202).
  expect((await post(accept, 'no-such-session')).status).toBe(404);
  expect((await post(accept, transport.sessionId ?? '')).status).toBe(202);
  const result = await call;
  expect(result.isError).toBeFalsy();
  expect(textOf(result)).toBe('jotted: two nodes');
  const device = await world.node.tokens.sign({ sub: 'erin', role: 'device', name: 'reader' });
  const inquiry = (await (
    await fetch(`${world.node.url}/api/inquiries/${inquiryId}`, {
      headers: { authorization: `Bearer ${device}` },
    })
  ).json()) as Inquiry;
  expect(inquiry.resolvedBy).toMatchObject({ deviceName: 'Two Node Chat (chat)', userId: 'erin' });
  const entries = await ledger.entries();
  expect(entries.filter((e) => (e as { jot?: string }).jot === 'two nodes')).toHaveLength(1);
});

it('a session the node opened on the same Redis names nothing at the proxy (each keeps its own)', async () => {
  const token = await world.node.tokens.sign({ sub: 'erin', role: 'agent', name: 'test agent' });
  const atNode = new Client({ name: 'Node Chat', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  atNode.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'cancel' }));
  const transport = new StreamableHTTPClientTransport(new URL(`${world.node.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await atNode.connect(transport);
  try {
    expect(transport.sessionId).toBeTruthy();
    const atProxy = await fetch(`${a.proxy.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId ?? '',
        'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(atProxy.status).toBe(404);
  } finally {
    await atNode.close();
  }
});
