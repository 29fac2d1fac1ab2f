import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { freePort } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDevice, EVERYTHING, startTestProxy, type TestProxy, textOf, useWorld } from './harness.js';

const world = useWorld('memory');

describe('in front of server-everything over stdio', () => {
  let t: TestProxy;
  beforeAll(async () => {
    t = await startTestProxy(
      world(),
      { kind: 'command', command: `node ${EVERYTHING} stdio`, name: 'everything' },
      { mode: 'gated', critical: ['echo'] },
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it("lists the backend's tools with their annotations, plus get_operation_status", async () => {
    const agent = await t.agent('alice');
    const { tools } = await agent.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'trigger-long-running-operation']));
    expect(names.at(-1)).toBe('get_operation_status');
    expect(tools.find((tool) => tool.name === 'echo')?.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('passes resources, resource templates and prompts through', async () => {
    const agent = await t.agent('alice');
    const { resources } = await agent.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0]!;
    const read = await agent.readResource({ uri: first.uri });
    expect(read.contents[0]?.uri).toBe(first.uri);
    const { resourceTemplates } = await agent.listResourceTemplates();
    expect(resourceTemplates.length).toBeGreaterThan(0);
    expect(resourceTemplates.every((r) => r.uriTemplate.startsWith('demo://'))).toBe(true);
    const { prompts } = await agent.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['simple-prompt', 'args-prompt']));
    const prompt = await agent.getPrompt({ name: 'args-prompt', arguments: { city: 'Lisbon' } });
    expect(JSON.stringify(prompt.messages)).toContain('Lisbon');
  });

  it('passes completions through', async () => {
    const agent = await t.agent('alice');
    const completion = await agent.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    expect(completion.completion.values).toContain('Engineering');
  });

  it("passes a read-only tool's progress through on the agent's own token, in order", async () => {
    const agent = await t.agent('alice');
    const progress: { progress: number; total?: number }[] = [];
    const result = await agent.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 4 } },
      undefined,
      { onprogress: (p) => progress.push({ progress: p.progress, total: p.total }) },
    );
    expect(textOf(result)).toContain('Long running operation completed');
    expect(progress).toEqual([1, 2, 3, 4].map((n) => ({ progress: n, total: 4 })));
  });

  it('keeps the backend call alive past the SDK default through progress (timeout raised)', async () => {
    const agent = await t.agent('alice');
    const started = Date.now();
    const result = await agent.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 8 } },
      undefined,
      { onprogress: () => undefined, timeout: 1200, resetTimeoutOnProgress: true },
    );
    expect(textOf(result)).toContain('Steps: 8');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
  });

  it('gates a critical tool: approved on the device, run with exactly the approved arguments', async () => {
    const device = await connectDevice(world(), 'bob');
    const agent = await t.agent('bob');
    const call = agent.callTool({ name: 'echo', arguments: { message: 'ship order 42' } });
    const inquiry = await device.nextInquiry();
    expect(inquiry).toMatchObject({
      kind: 'approval',
      critical: true,
      action: { server: 'everything', tool: 'echo', arguments: { message: 'ship order 42' } },
    });
    expect(inquiry.question).toContain('{"message":"ship order 42"}');
    expect(await device.answer(inquiry.inquiryId, 'approve')).toEqual({ ok: true, status: 'answered' });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Echo: ship order 42');
    expect(t.decisions.at(-1)).toMatchObject({
      userId: 'bob',
      tool: 'echo',
      outcome: 'approved',
      reason: 'critical',
      deviceName: 'phone',
      inquiryId: inquiry.inquiryId,
      arguments: '{"message":"ship order 42"}',
    });
    device.socket.disconnect();
  });

  it("asks the calling agent's own user, never another's", async () => {
    const carol = await connectDevice(world(), 'carol');
    const dave = await connectDevice(world(), 'dave');
    const agent = await t.agent('dave');
    const call = agent.callTool({ name: 'echo', arguments: { message: 'for dave' } });
    const inquiry = await dave.nextInquiry();
    await dave.answer(inquiry.inquiryId, 'approve');
    expect(textOf(await call)).toBe('Echo: for dave');
    expect(carol.seen).toEqual([]);
    carol.socket.disconnect();
    dave.socket.disconnect();
  });
});

describe('doors', () => {
  let t: TestProxy;
  beforeAll(async () => {
    t = await startTestProxy(
      world(),
      { kind: 'command', command: `node ${EVERYTHING}`, name: 'everything' },
      {},
    );
  });
  afterAll(async () => {
    await t?.close();
  });
  const post = (headers: Record<string, string>) =>
    fetch(`${t.proxy.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });

  it('refuses a missing token (401), a device token (403), a foreign Host (403); GET is 405', async () => {
    expect((await post({})).status).toBe(401);
    const device = await world().node.tokens.sign({ sub: 'eve', role: 'device' });
    expect((await post({ authorization: `Bearer ${device}` })).status).toBe(403);
    const agent = await world().node.tokens.sign({ sub: 'eve', role: 'agent' });
    expect(await statusWithHost(`${t.proxy.url}/mcp`, 'evil.example', agent)).toBe(403);
    expect(await statusWithHost(`${t.proxy.url}/mcp`, `localhost:${t.proxy.port}`, agent)).toBe(200);
    expect((await post({ authorization: `Bearer ${agent}` })).status).toBe(200);
    expect(
      (await fetch(`${t.proxy.url}/mcp`, { headers: { authorization: `Bearer ${agent}` } })).status,
    ).toBe(405);
    expect((await fetch(`${t.proxy.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${t.proxy.url}/readyz`)).status).toBe(200);
  });

  it('answers its refusals in the same JSON-RPC form as the node: the shared code table, data naming the code', async () => {
    const agent = await world().node.tokens.sign({ sub: 'eve', role: 'agent' });
    const get = await fetch(`${t.proxy.url}/mcp`, { headers: { authorization: `Bearer ${agent}` } });
    expect(get.headers.get('allow')).toBe('POST');
    expect(await get.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Method not allowed: this proxy is stateless; use POST',
        data: { code: 'method_not_allowed' },
      },
      id: null,
    });
  });

  it('refuses arguments nested deeper than 64 levels as invalid params naming the field', async () => {
    const agent = await world().node.tokens.sign({ sub: 'eve', role: 'agent' });
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const response = await fetch(`${t.proxy.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${agent}`,
      },
      body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":${deep}}}}`,
    });
    const text = await response.text();
    expect(text).toContain('-32602');
    expect(text).toContain('params.arguments.message');
    expect(text).not.toContain('-32603');
  });
});

describe('in front of server-everything over Streamable HTTP', () => {
  let backend: ChildProcess;
  let t: TestProxy;
  beforeAll(async () => {
    const port = await freePort();
    backend = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      backend.stderr?.on('data', (chunk) => String(chunk).includes('listening') && resolve());
      backend.once('exit', (code) => reject(new Error(`server-everything exited ${code}`)));
    });
    t = await startTestProxy(
      world(),
      { kind: 'url', url: `http://127.0.0.1:${port}/mcp`, name: 'everything-http' },
      { mode: 'all' },
    );
  });
  afterAll(async () => {
    await t?.close();
    backend?.kill();
  });

  it('lists tools and runs an approved call on the HTTP backend', async () => {
    const agent = await t.agent('frank');
    const { tools } = await agent.listTools();
    expect(tools.map((tool) => tool.name)).toContain('get-sum');
    const device = await connectDevice(world(), 'frank');
    const call = agent.callTool({ name: 'get-sum', arguments: { b: 2, a: 40 } });
    const inquiry = await device.nextInquiry();
    expect(inquiry.action).toMatchObject({
      server: 'everything-http',
      tool: 'get-sum',
      arguments: { a: 40, b: 2 },
      inputSchema: { type: 'object' },
    });
    await device.answer(inquiry.inquiryId, 'approve');
    expect(textOf(await call)).toContain('42');
    device.socket.disconnect();
  });
});

/** fetch cannot set Host: a raw request can. */
function statusWithHost(url: string, host: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: {
        host,
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
    });
    req.once('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
  });
}
