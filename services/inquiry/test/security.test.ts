import { request } from 'node:http';
import type { ErrorBody } from '@hitl/protocol';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, connectDevice, startTestNode, type TestNode } from './harness.js';

const rpc = (method: string, params: unknown = {}, id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function rpcError(
  client: Awaited<ReturnType<TestNode['mcp']>>,
  args: Record<string, unknown>,
  name = 'send_inquiry',
) {
  try {
    await client.callTool({ name, arguments: args });
  } catch (error) {
    return error as McpError;
  }
  throw new Error('expected a JSON-RPC error');
}

function rawPost(url: string, headers: Record<string, string>, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describe('doors, tokens and bad input', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('memory');
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body });

  it('refuses /mcp without a token (401), with a forged or expired one (401), and a device token (403)', async () => {
    const none = await post(rpc('tools/list'));
    expect(none.status).toBe(401);
    expect((await body<ErrorBody>(none)).error.message).toMatch(/token/);
    const forged = await post(rpc('tools/list'), { authorization: 'Bearer abc.def.ghi' });
    expect(forged.status).toBe(401);
    const expired = await t.node.tokens.sign({ sub: 'u1', role: 'agent' }, { expiresIn: '1s' });
    // time itself is under test: the 1 s token expires.
    await new Promise((r) => setTimeout(r, 2100));
    expect((await post(rpc('tools/list'), { authorization: `Bearer ${expired}` })).status).toBe(401);
    const device = await t.token('u1', 'device');
    expect((await post(rpc('tools/list'), { authorization: `Bearer ${device}` })).status).toBe(403);
  });

  it('refuses REST without a token (401) and with an agent token (403); health and metrics are open', async () => {
    expect((await t.rest('/api/inquiries')).status).toBe(401);
    const agent = await t.rest('/api/inquiries', { token: await t.token('u1', 'agent') });
    expect(agent.status).toBe(403);
    expect(await agent.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect((await t.rest('/healthz')).status).toBe(200);
    expect((await t.rest('/readyz')).status).toBe(200);
    expect(await (await t.rest('/metrics')).text()).toContain('hitl_pending_inquiries');
  });

  it('refuses a foreign Host or Origin (DNS rebinding) with 403, accepts loopback on any port', async () => {
    const agent = await t.token('u1', 'agent');
    const auth = { authorization: `Bearer ${agent}` };
    const { port } = new URL(t.url);
    // fetch cannot set Host; a raw request can.
    const evilHost = await rawPost(
      `${t.url}/mcp`,
      { ...MCP_HEADERS, ...auth, host: 'evil.example' },
      rpc('tools/list'),
    );
    expect(evilHost).toBe(403);
    expect(
      await rawPost(
        `${t.url}/mcp`,
        { ...MCP_HEADERS, ...auth, host: `localhost:${port}` },
        rpc('tools/list'),
      ),
    ).toBe(200);
    expect((await post(rpc('tools/list'), { ...auth, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(rpc('tools/list'), { ...auth, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await post(rpc('tools/list'), { ...auth, origin: 'http://[::1]:9999' })).status).toBe(200);
  });

  it('applies the body limit to chunked bodies too (no Content-Length)', async () => {
    const auth = { authorization: `Bearer ${await t.token('u1', 'agent')}` };
    const chunked = (payload: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          `${t.url}/mcp`,
          { method: 'POST', headers: { ...MCP_HEADERS, ...auth } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        // Two writes without a length: Node sends Transfer-Encoding: chunked.
        req.write(payload.slice(0, 10));
        req.end(payload.slice(10));
      });
    expect(await chunked(rpc('tools/list'))).toBe(200);
    const huge = rpc('tools/call', { name: 'send_inquiry', arguments: { question: 'x'.repeat(300_000) } });
    expect(await chunked(huge)).toBe(413);
    expect((await t.rest('/healthz')).status).toBe(200);
  });

  it('answers GET and DELETE /mcp with 405', async () => {
    const agent = { authorization: `Bearer ${await t.token('u1', 'agent')}` };
    expect((await fetch(`${t.url}/mcp`, { headers: agent })).status).toBe(405);
    expect((await fetch(`${t.url}/mcp`, { method: 'DELETE', headers: agent })).status).toBe(405);
  });

  it('gives malformed JSON a parse error and an oversized body 413, and keeps serving', async () => {
    const auth = { authorization: `Bearer ${await t.token('u1', 'agent')}` };
    const malformed = await post('{"jsonrpc": "2.0", "id": 1, "method": ', auth);
    expect(malformed.status).toBe(400);
    expect((await body<{ error: { code: number } }>(malformed)).error.code).toBe(-32700);
    const huge = rpc('tools/call', { name: 'send_inquiry', arguments: { question: 'x'.repeat(300_000) } });
    expect((await post(huge, auth)).status).toBe(413);
    const restHuge = await t.rest('/api/inquiries/x/answer', {
      method: 'POST',
      token: await t.token('u1', 'device'),
      body: JSON.stringify({ response: 'y'.repeat(300_000) }),
    });
    expect(restHuge.status).toBe(413);
    expect((await t.rest('/healthz')).status).toBe(200);
    const client = await t.mcp('u1');
    expect((await client.listTools()).tools).toHaveLength(3);
  });

  it('names the bad field in invalid-params errors, and rejects unknown tools as a protocol error', async () => {
    const client = await t.mcp('u1');
    const cases: [Record<string, unknown>, string][] = [
      [{ question: '' }, 'question'],
      [{ question: 'ok', confidence: 'high' }, 'confidence'],
      [{ question: 'ok', confidence: 1.5 }, 'confidence'],
      [{ question: 'ok', confidence: true }, 'confidence'],
      [{ question: 'ok', timeoutMs: 999_999_999 }, 'timeoutMs'],
      [{ question: 'ok', questions: [{ id: 'a', prompt: 'A?', kind: 'choice' }] }, 'questions.0.options'],
      [{ question: 'ok', context: 'c'.repeat(40_000) }, 'context'],
      [{ question: 'q'.repeat(8193) }, 'question'],
    ];
    for (const [args, field] of cases) {
      const error = await rpcError(client, args);
      expect(error).toBeInstanceOf(McpError);
      expect(error.code).toBe(-32602);
      expect(error.message).toContain(field);
    }
    const unknown = await rpcError(client, {}, 'no_such_tool');
    expect(unknown.code).toBe(-32602);
    expect((await client.listTools()).tools).toHaveLength(3);
  });

  it('rejects devices with a bad token or the wrong role at the handshake, with a reason', async () => {
    await expect(connectDevice(t.url, 'not-a-token', 'x')).rejects.toMatchObject({
      data: { code: 'unauthorized' },
    });
    await expect(connectDevice(t.url, await t.token('u1', 'agent'), 'x')).rejects.toMatchObject({
      data: { code: 'forbidden' },
      message: expect.stringMatching(/needs device/),
    });
  });

  it('adjusts tool descriptions per connection from the MCP URL query', async () => {
    const client = await t.mcp('u1', '?description=Ask%20the%20shopper&lang=de');
    const send = (await client.listTools()).tools.find((tool) => tool.name === 'send_inquiry');
    expect(send?.description).toBe('Ask the shopper Write your questions in German.');
  });
});

describe('limits', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('memory', { HITL_RATE_PER_MIN: '5', HITL_MAX_PENDING_PER_USER: '1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('caps pending inquiries per user with a retryable error; nothing is created', async () => {
    const client = await t.mcp('capped');
    const watcher = await t.device('capped', 'watcher');
    await watcher.synced;
    const first = client.callTool({ name: 'send_inquiry', arguments: { question: 'one' } });
    // The first is pending once it reaches the user's devices.
    await watcher.nextNew();
    const error = await rpcError(client, { question: 'two' });
    expect(error.message).toMatch(/pending/);
    expect(error.data).toMatchObject({ code: 'too_many_pending' });
    const device = await t.device('capped');
    const { inquiries } = await device.synced;
    expect(inquiries.map((i) => i.question)).toEqual(['one']);
    await device.emit('inquiry:answer', { inquiryId: inquiries[0]?.inquiryId, response: 'ok' });
    await first;
  });

  it('rate-limits per token with 429 and Retry-After', async () => {
    const auth = { authorization: `Bearer ${await t.token('busy', 'agent')}` };
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...auth },
        body: rpc('tools/list', {}, i),
      });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });
});
