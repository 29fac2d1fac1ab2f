import { randomUUID } from 'node:crypto';
import type { DeviceAck, Inquiry, Page } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  CreateTaskResultSchema,
  McpError,
  RELATED_TASK_META_KEY,
  type Task,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldCalls, STORE_KINDS, startTestNode, type TestNode } from './harness.js';

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const WINDOW_CAP_MS = 3_600_000;

/** `tools/call` of send_inquiry as a task, through the SDK client's own task option. */
function askAsTask(client: Client, args: Record<string, unknown>, ttl?: number) {
  return client.request(
    { method: 'tools/call', params: { name: 'send_inquiry', arguments: args } },
    CreateTaskResultSchema,
    { task: ttl === undefined ? {} : { ttl } },
  );
}

/** The JSON-RPC error a call fails with. */
async function rpcError(call: Promise<unknown>): Promise<McpError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

/** What a result says to the model and to code, without the task's `_meta`. */
const said = (result: CallToolResult) => ({
  content: result.content,
  structuredContent: result.structuredContent,
});

describe.each(STORE_KINDS)('MCP tasks (%s store)', (kind) => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode(kind, { HITL_MAX_ANSWER_WINDOW_MS: String(WINDOW_CAP_MS) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates a task at once, polls it working, and returns the answer as send_inquiry would', async () => {
    const user = newUser();
    const device = await t.device(user, 'phone');
    await device.synced;
    const client = await t.mcp(user);
    const statuses: Task[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
      statuses.push(n.params as Task);
    });

    const before = Date.now();
    const created = await askAsTask(client, { question: 'Which size?', options: ['S', 'M', 'L'] }, 600_000);
    expect(created.task).toMatchObject({ status: 'working', ttl: 600_000, pollInterval: 5000 });
    expect(created.task.taskId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(created.task.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(created._meta?.['io.modelcontextprotocol/model-immediate-response']).toMatch(
      /nothing is answered/,
    );
    const { taskId } = created.task;

    // The inquiry is out on the device with the task's ttl as its answer window.
    const pushed = await device.nextNew();
    expect(pushed.question).toBe('Which size?');
    expect(pushed.deadlines.answerBy).toBeGreaterThanOrEqual(before + 600_000 - 1000);
    expect(pushed.deadlines.answerBy).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);

    expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((task) => task.taskId)).toEqual([taskId]);

    // tasks/result blocks while the person thinks; progress keeps a 60 s client waiting.
    const progress: number[] = [];
    const result = client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, {
      onprogress: (p) => progress.push(p.progress),
      resetTimeoutOnProgress: true,
    });
    // The wait is on (its first progress came) when the person answers.
    await eventually(() => progress.length > 0);
    const ack = await device.emit<DeviceAck>('inquiry:answer', {
      inquiryId: pushed.inquiryId,
      response: 'M',
    });
    expect(ack).toEqual({ ok: true, status: 'answered' });
    const answered = await result;
    expect(answered.structuredContent).toMatchObject({
      inquiryId: pushed.inquiryId,
      status: 'answered',
      answer: 'M',
      resolvedBy: { kind: 'human', deviceName: 'phone' },
    });
    expect(answered._meta?.[RELATED_TASK_META_KEY]).toEqual({ taskId });
    expect(progress.length).toBeGreaterThan(0);
    // The very result the tools build: get_inquiry on the same inquiry says the same, word for word.
    const viaTool = (await client.callTool({
      name: 'get_inquiry',
      arguments: { inquiryId: pushed.inquiryId },
    })) as CallToolResult;
    expect(said(answered)).toEqual(said(viaTool));
    expect(statuses.map((s) => [s.taskId, s.status])).toEqual([[taskId, 'completed']]);

    const done = await client.experimental.tasks.getTask(taskId);
    expect(done).toMatchObject({ taskId, status: 'completed', ttl: 600_000 });
    expect(Date.parse(done.lastUpdatedAt)).toBeGreaterThanOrEqual(Date.parse(done.createdAt));
    // A finished task answers tasks/result at once, again and again.
    expect(said(await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema))).toEqual(
      said(viaTool),
    );
  });

  it("tasks/cancel cancels the inquiry, closes it on every device, and can't cancel twice", async () => {
    const user = newUser();
    const desktop = await t.device(user, 'desktop');
    const phone = await t.device(user, 'phone');
    await Promise.all([desktop.synced, phone.synced]);
    const client = await t.mcp(user);
    const { task } = await askAsTask(client, { question: 'Deploy now?' }, 60_000);
    const pushed = await desktop.nextNew();
    expect((await phone.nextNew()).inquiryId).toBe(pushed.inquiryId);

    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    // The prompt closes on both of the user's devices, not only on one of them.
    const closed = { inquiryId: pushed.inquiryId, status: 'cancelled', resolvedBy: { kind: 'agent' } };
    expect(await desktop.nextResolved()).toMatchObject(closed);
    expect(await phone.nextResolved()).toMatchObject(closed);
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ status: 'cancelled', resolvedBy: { kind: 'agent' } });
    const again = await rpcError(client.experimental.tasks.cancelTask(task.taskId));
    expect(again.code).toBe(-32602);
    expect(again.message).toMatch(/already cancelled/);
  });

  it("another user's task id is not found, exactly like an id that never existed", async () => {
    const owner = await t.mcp(newUser());
    const stranger = await t.mcp(newUser());
    const { task } = await askAsTask(owner, { question: 'Private?' }, 60_000);
    const bogus = 'A'.repeat(32);
    for (const id of [task.taskId, bogus, 'not-a-task-id']) {
      for (const call of [
        () => stranger.experimental.tasks.getTask(id),
        () => stranger.experimental.tasks.getTaskResult(id, CallToolResultSchema),
        () => stranger.experimental.tasks.cancelTask(id),
      ]) {
        const error = await rpcError(call());
        expect(error.code).toBe(-32602);
        expect(error.message).toMatch(new RegExp(`: Task not found: ${id}$`));
      }
    }
    expect((await stranger.experimental.tasks.listTasks()).tasks).toEqual([]);
    // The owner's task is untouched by the stranger's cancel.
    expect(await owner.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
  });

  it('a short ttl is the answer window: the task completes with the timed-out result', async () => {
    const client = await t.mcp(newUser());
    const { task } = await askAsTask(client, { question: 'Quick?' }, 2000);
    expect(task.ttl).toBe(2000);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      status: 'timed_out',
      resolvedBy: { kind: 'service-timer' },
    });
    expect(result.isError).toBeFalsy();
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed' });
  });
});

describe('MCP tasks: windows, negotiation and refusals', () => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode('memory', { HITL_MAX_ANSWER_WINDOW_MS: String(WINDOW_CAP_MS) });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('declares the tasks capability and taskSupport per tool', async () => {
    const client = await t.mcp(newUser());
    expect(client.getServerCapabilities()?.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution?.taskSupport]));
    expect(support).toEqual({
      send_inquiry: 'optional',
      get_inquiry: 'forbidden',
      answer_inquiry: 'forbidden',
    });
  });

  it('caps the window at HITL_MAX_ANSWER_WINDOW_MS; no ttl asks for the whole cap', async () => {
    const user = newUser();
    const device = await t.device(user);
    await device.synced;
    const client = await t.mcp(user);
    for (const ttl of [undefined, WINDOW_CAP_MS * 10]) {
      const before = Date.now();
      const { task } = await askAsTask(client, { question: `Window ${ttl}?` }, ttl);
      expect(task.ttl).toBe(WINDOW_CAP_MS);
      const pushed = await device.nextNew();
      expect(pushed.deadlines.answerBy).toBeGreaterThanOrEqual(before + WINDOW_CAP_MS);
      expect(pushed.deadlines.answerBy).toBeLessThanOrEqual(Date.now() + WINDOW_CAP_MS);
    }
  });

  it('get_inquiry as a task is method-not-found (its taskSupport is forbidden)', async () => {
    const client = await t.mcp(newUser());
    const error = await rpcError(
      client.request(
        { method: 'tools/call', params: { name: 'get_inquiry', arguments: { inquiryId: 'x' } } },
        CreateTaskResultSchema,
        { task: {} },
      ),
    );
    expect(error.code).toBe(-32601);
  });

  it('invalid arguments fail the call itself, before any task exists', async () => {
    const client = await t.mcp(newUser());
    const error = await rpcError(askAsTask(client, { question: '' }, 60_000));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/question/);
    expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
  });

  it('a whole task through callToolStream: created, polled, answered', async () => {
    const user = newUser();
    const device = await t.device(user);
    await device.synced;
    const client = await t.mcp(user);
    await client.listTools(); // lets the client know send_inquiry may run as a task
    const seen: string[] = [];
    const stream = client.experimental.tasks.callToolStream(
      { name: 'send_inquiry', arguments: { question: 'Streamed?' } },
      CallToolResultSchema,
      { task: { ttl: 120_000 } },
    );
    const answering = device
      .nextNew()
      .then((pushed: { inquiryId: string }) =>
        device.emit('inquiry:answer', { inquiryId: pushed.inquiryId, response: 'yes' }),
      );
    let final: CallToolResult | undefined;
    for await (const message of stream) {
      seen.push(message.type);
      if (message.type === 'result') final = message.result as CallToolResult;
      if (message.type === 'error') throw message.error;
    }
    await answering;
    expect(seen[0]).toBe('taskCreated');
    expect(seen.at(-1)).toBe('result');
    expect(final?.structuredContent).toMatchObject({ status: 'answered', answer: 'yes' });
  });
});

describe('MCP tasks: the tasks/result wait', () => {
  it('a notifications/cancelled for a tasks/result request ends that wait only, not the task', async () => {
    const t = await startTestNode('memory');
    try {
      const user = newUser();
      const client = await t.mcp(user);
      const { task } = await askAsTask(client, { question: 'Keep me?' }, 60_000);
      const agent = await t.token(user, 'agent');
      const post = (message: unknown) =>
        fetch(`${t.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${agent}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify(message),
        });
      const held = await post({
        jsonrpc: '2.0',
        id: 77,
        method: 'tasks/result',
        params: { taskId: task.taskId },
      });
      expect(held.status).toBe(200);
      await eventually(async () => (await heldCalls(t.url)) === 1);
      const cancel = await post({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 77 },
      });
      expect(cancel.status).toBe(202);
      // The wait ends with no result made up (ask again), and the task goes on.
      const ended = await held.text();
      expect(ended).toContain('"retryAfterMs":1000');
      expect(ended).not.toContain('"result"');
      expect(await heldCalls(t.url)).toBe(0);
      expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
    } finally {
      await t.close();
    }
  });

  it('a draining node gives up a tasks/result wait with a retryable error, never a made-up result', async () => {
    const t = await startTestNode('memory', { HITL_DRAIN_MS: '300' });
    try {
      const client = await t.mcp(newUser());
      const { task } = await askAsTask(client, { question: 'Across a restart?' }, 60_000);
      const result = client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      await eventually(async () => (await heldCalls(t.url)) === 1);
      const closing = t.node.close();
      const error = await rpcError(result);
      expect(error.code).toBe(-32603);
      expect(error.data).toEqual({ code: 'unavailable', retryAfterMs: 1000 });
      expect(error.message).toMatch(/still working; ask for its result again/);
      await closing;
    } finally {
      await t.close();
    }
  });
});

describe('protocol 2026-07-28', () => {
  let t: TestNode;
  let agent: string;
  beforeAll(async () => {
    t = await startTestNode('memory');
    agent = await t.token('modern', 'agent');
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (message: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(message),
    });
  /** A request as a 2026-07-28 client frames it: version and capabilities in `_meta`, and headers. */
  const modern = (id: number, method: string, params: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    },
  });
  const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28' };
  const SERVED = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

  it.each([
    ['server/discover', modern(1, 'server/discover'), MODERN_HEADERS],
    [
      'tools/call',
      modern(2, 'tools/call', { name: 'send_inquiry', arguments: { question: 'Modern?' } }),
      { ...MODERN_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': 'send_inquiry' },
    ],
    ['a body that names the version without the header', modern(3, 'tools/list'), {}],
  ])(
    'refuses %s with UnsupportedProtocolVersionError naming the versions served',
    async (_, message, headers) => {
      const response = await post(message, headers);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        id: message.id,
        error: {
          code: -32022,
          message: expect.stringContaining('2025-11-25'),
          data: { supported: SERVED, requested: '2026-07-28' },
        },
      });
    },
  );

  it('creates nothing for a refused modern tools/call', async () => {
    await post(
      modern(4, 'tools/call', { name: 'send_inquiry', arguments: { question: 'Ghost?' } }),
      MODERN_HEADERS,
    );
    const pending = await t.rest('/api/inquiries?status=pending', {
      token: await t.token('modern', 'device'),
    });
    expect(((await pending.json()) as Page<Inquiry>).items).toEqual([]);
  });

  it('answers an initialize offering 2026-07-28 with 2025-11-25 (the legacy handshake a dual-era client falls back to)', async () => {
    const response = await post({
      jsonrpc: '2.0',
      id: 5,
      method: 'initialize',
      params: { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'dual', version: '2' } },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const result = JSON.parse(text.slice(text.indexOf('data: ') + 6).split('\n')[0] as string) as {
      result: { protocolVersion: string; capabilities: { tasks?: unknown } };
    };
    expect(result.result.protocolVersion).toBe('2025-11-25');
    expect(result.result.capabilities.tasks).toBeDefined();
  });
});
