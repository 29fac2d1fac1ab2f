import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePolicy } from '@hitl/mcp-proxy';
import type { Inquiry } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
 * `approveInChat: true`: a held approval put in the agent's own chat, through the real proxy in front
 * of a real stdio MCP server that records what it ran (the ledger), a real node, a real socket.io
 * phone and the official SDK client declaring elicitation. `jot` may be approved in the chat; `charge`
 * may not (no approveInChat); `settle` is critical (the `s*` glob says approveInChat, the critical list
 * wins at call time).
 */
const CLIENT_NAME = 'Test Chat';
const POLICY = {
  mode: 'gated',
  critical: ['settle'],
  tools: { 'j*': { approveInChat: true }, 's*': { approveInChat: true } },
};

let world: World;
let dir: string;
let t: TestProxy;
let ledger: Awaited<ReturnType<typeof ledgerBackend>>;
let phone: TestDevice;
const open: Client[] = [];

beforeAll(async () => {
  world = await startWorld('memory');
  dir = await mkdtemp(join(tmpdir(), 'proxy-chat-'));
  ledger = await ledgerBackend(dir);
  t = await startTestProxy(world, ledger.spec, POLICY);
  phone = await connectDevice(world, 'erin');
}, 30_000);

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => undefined)));
});

afterAll(async () => {
  phone?.socket.disconnect();
  await t?.close();
  await world?.close();
  await rm(dir, { recursive: true, force: true });
});

type Handler = (
  request: ElicitRequest,
  signal: AbortSignal,
  requestId: string | number,
) => Promise<ElicitResult>;

/** An SDK client of `user` at the proxy that takes form elicitation, answering with `handler`. */
async function chatAgent(user: string, handler: Handler) {
  const client = new Client(
    { name: CLIENT_NAME, version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  const asked: ElicitRequest[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    asked.push(request);
    return handler(request, extra.signal, extra.requestId);
  });
  const token = await world.node.tokens.sign({ sub: user, role: 'agent', name: 'test agent' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.proxy.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  open.push(client);
  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args }, undefined, {
      onprogress: () => undefined,
      resetTimeoutOnProgress: true,
    }) as Promise<CallToolResult>;
  return { client, transport, asked, call, token };
}

/** The inquiry as the node keeps it, read over its REST as erin's device. */
async function nodeInquiry(inquiryId: string): Promise<Inquiry> {
  const token = await world.node.tokens.sign({ sub: 'erin', role: 'device', name: 'reader' });
  const response = await fetch(`${world.node.url}/api/inquiries/${inquiryId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Inquiry;
}

async function ran(tool: string): Promise<number> {
  return (await ledger.entries()).filter((e) => (e as Record<string, unknown>)[tool] !== undefined).length;
}

describe('a tool with approveInChat', () => {
  it('gets a session, asks in the chat, and the chat approves: the backend runs once, from "<client> (chat)"', async () => {
    const before = await ran('jot');
    const agent = await chatAgent('erin', async () => ({
      action: 'accept',
      content: { decision: 'approve' },
    }));
    expect(agent.transport.sessionId).toMatch(/^[\w-]{20,}$/);
    const call = agent.call('jot', { text: 'from the chat' });
    const { inquiryId } = await phone.nextInquiry();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('jotted: from the chat');
    expect(await ran('jot')).toBe(before + 1);
    expect(agent.asked).toHaveLength(1);
    const params = agent.asked[0]?.params as { message: string; requestedSchema: unknown };
    expect(params.message).toContain('Approve jot on ledger with:');
    expect(params.requestedSchema).toMatchObject({
      properties: { decision: { enum: ['approve', 'reject'] }, reason: { type: 'string' } },
      required: ['decision'],
    });
    const inquiry = await nodeInquiry(inquiryId);
    expect(inquiry).toMatchObject({
      status: 'answered',
      answer: 'approve',
      resolvedBy: { kind: 'human', deviceName: `${CLIENT_NAME} (chat)`, userId: 'erin' },
    });
  });

  it('a decline rejects the call with the reason the form carried: nothing runs', async () => {
    const before = await ran('jot');
    const agent = await chatAgent('erin', async () => ({
      action: 'decline',
      content: { reason: 'not on a Friday' },
    }));
    const call = agent.call('jot', { text: 'declined' });
    const { inquiryId } = await phone.nextInquiry();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('The human declined this action');
    expect(textOf(result)).toContain('They said: "not on a Friday"');
    expect(await ran('jot')).toBe(before);
    expect(await nodeInquiry(inquiryId)).toMatchObject({
      answer: 'reject',
      reason: 'not on a Friday',
      resolvedBy: { deviceName: `${CLIENT_NAME} (chat)` },
    });
  });

  it('answered on the phone first: the chat is told to withdraw it, the call ends approved, a late chat answer changes nothing', async () => {
    const before = await ran('jot');
    let elicited!: () => void;
    const elicitedNow = new Promise<void>((resolve) => {
      elicited = resolve;
    });
    let withdrawn: unknown;
    let elicitationId: string | number | undefined;
    const agent = await chatAgent('erin', (_request, signal, requestId) => {
      elicitationId = requestId;
      elicited();
      // The person has not answered yet: the dialog stays open until the proxy withdraws it.
      return new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          withdrawn = signal.reason;
          resolve({ action: 'cancel' });
        });
      });
    });
    const call = agent.call('jot', { text: 'phone wins' });
    const { inquiryId } = await phone.nextInquiry();
    await elicitedNow;
    await phone.answer(inquiryId, 'approve');
    const result = await call;
    expect(result.isError).toBeFalsy();
    // notifications/cancelled came before the result, on the held call's stream.
    expect(String(withdrawn)).toContain('the approval ended (approved) elsewhere');
    expect(await ran('jot')).toBe(before + 1);
    expect(await nodeInquiry(inquiryId)).toMatchObject({
      answer: 'approve',
      resolvedBy: { deviceName: 'phone' },
    });
    // A response that comes after the end (here sent by hand) is taken (202) and changes nothing.
    const late = await fetch(`${t.proxy.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': agent.transport.sessionId ?? '',
        'mcp-protocol-version': agent.transport.protocolVersion ?? '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: elicitationId,
        result: { action: 'accept', content: { decision: 'reject' } },
      }),
    });
    expect(late.status).toBe(202);
    expect(await nodeInquiry(inquiryId)).toMatchObject({
      answer: 'approve',
      resolvedBy: { deviceName: 'phone' },
    });
    expect(await ran('jot')).toBe(before + 1);
  });
});

describe('tools the chat never approves', () => {
  it('a tool without approveInChat is not put in the chat', async () => {
    const agent = await chatAgent('erin', async () => ({
      action: 'accept',
      content: { decision: 'approve' },
    }));
    const call = agent.call('charge', { amount: 7 });
    const { inquiryId } = await phone.nextInquiry();
    await phone.answer(inquiryId, 'approve');
    const result = await call;
    expect(textOf(result)).toContain('charged 7');
    expect(agent.asked).toHaveLength(0);
  });

  it('a critical tool is not put in the chat, though a glob says approveInChat', async () => {
    const agent = await chatAgent('erin', async () => ({
      action: 'accept',
      content: { decision: 'approve' },
    }));
    const call = agent.call('settle', { amount: 3, delayMs: 0 });
    const { inquiryId } = await phone.nextInquiry();
    await phone.answer(inquiryId, 'approve');
    const result = await call;
    expect(textOf(result)).toBe('settled 3');
    expect(agent.asked).toHaveLength(0);
    expect((await nodeInquiry(inquiryId)).resolvedBy?.deviceName).toBe('phone');
  });

  it('a policy naming a critical, quorum or passkey tool with approveInChat does not load', () => {
    expect(() => parsePolicy({ critical: ['settle'], tools: { settle: { approveInChat: true } } })).toThrow(
      /tools\.settle\.approveInChat: a critical, quorum or passkey tool is never approved/,
    );
    expect(() => parsePolicy({ tools: { pay: { requirePasskey: true, approveInChat: true } } })).toThrow(
      /tools\.pay\.approveInChat/,
    );
  });

  it('a client that declares no elicitation stays sessionless', async () => {
    const client = new Client({ name: 'plain', version: '1.0.0' });
    const token = await world.node.tokens.sign({ sub: 'erin', role: 'agent', name: 'plain agent' });
    const transport = new StreamableHTTPClientTransport(new URL(`${t.proxy.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    open.push(client);
    expect(transport.sessionId).toBeUndefined();
  });
});
