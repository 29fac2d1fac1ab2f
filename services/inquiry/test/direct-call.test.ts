import { SseKeepAlive } from '@hitl/mcp-http';
import { eventually } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { directCallOf } from '../src/mcp/direct-call.js';
import { heldCalls, startTestNode, type TestNode } from './harness.js';

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

/** The JSON-RPC messages of an SSE response body, in order. */
function sseMessages(text: string): unknown[] {
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

describe('tools/call served on the node’s own stream', () => {
  let t: TestNode;
  let agent: string;
  beforeAll(async () => {
    t = await startTestNode('memory');
    agent = await t.token('direct-user', 'agent');
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${agent}`, ...headers },
      body: JSON.stringify(body),
    });

  const call = (id: number, name: string, args: unknown) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  });

  // A one-message batch always takes the SDK's per-request server: the reference to compare with.
  it.each([
    ['a result', call(1, 'get_inquiry', { inquiryId: 'no-such-inquiry' })],
    ['an invalid-params error naming the field', call(2, 'send_inquiry', { question: '' })],
    ['an unknown-tool error', call(3, 'no_such_tool', {})],
  ])('answers with the same frames as the SDK path: %s', async (_, message) => {
    const direct = await post(message);
    const viaSdk = await post([message]);
    expect(direct.status).toBe(200);
    for (const header of ['content-type', 'cache-control', 'x-accel-buffering'])
      expect(direct.headers.get(header)).toBe(viaSdk.headers.get(header));
    const directMessages = sseMessages(await direct.text());
    expect(directMessages).toEqual(sseMessages(await viaSdk.text()));
    expect(directMessages).toHaveLength(1);
  });

  const held = () => heldCalls(t.url);

  // The direct path aborts its own CallAbort; the SDK path's signal reaches the wait through a listener.
  it.each([
    ['served directly', (m: unknown) => m],
    ['on the SDK path', (m: unknown) => [m]],
  ])('releases a held call whose caller goes away (%s)', async (_, wrap) => {
    const gone = new AbortController();
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${agent}` },
      body: JSON.stringify(wrap(call(10, 'send_inquiry', { question: 'Hold me?' }))),
      signal: gone.signal,
    });
    expect(response.status).toBe(200);
    await eventually(async () => (await held()) === 1);
    gone.abort();
    await eventually(async () => (await held()) === 0);
  });

  const TASKS = { 'mcp-protocol-version': '2025-11-25' };
  const taskResult = (id: number, taskId: string, progressToken?: string) => ({
    jsonrpc: '2.0',
    id,
    method: 'tasks/result',
    params: { taskId, ...(progressToken ? { _meta: { progressToken } } : {}) },
  });

  /** send_inquiry as a task (the SDK path); its task id and the inquiry its device got. */
  async function askAsTask(question: string, device: Awaited<ReturnType<TestNode['device']>>) {
    const response = await post(
      {
        ...call(20, 'send_inquiry', { question }),
        params: { name: 'send_inquiry', arguments: { question }, task: {} },
      },
      TASKS,
    );
    const [created] = sseMessages(await response.text()) as { result: { task: { taskId: string } } }[];
    return { taskId: created?.result.task.taskId as string, inquiry: await device.nextNew() };
  }

  it('answers a tasks/result with the same frames as the SDK path: held, then answered; ended; not found', async () => {
    const device = await t.device('direct-user');
    await device.synced;
    const { taskId, inquiry } = await askAsTask('Task direct?', device);
    // Both wait on the same task at once, one served directly, one through the SDK's server.
    const direct = await post(taskResult(21, taskId, 'p'), TASKS);
    const viaSdk = await post([taskResult(121, taskId, 'p')], TASKS);
    for (const header of ['content-type', 'cache-control', 'x-accel-buffering'])
      expect(direct.headers.get(header)).toBe(viaSdk.headers.get(header));
    await eventually(async () => (await held()) === 2);
    await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'yes' });
    // Two calls at once need two request ids: compare the frames without them.
    const withoutId = (messages: unknown[]) => messages.map((m) => ({ ...(m as object), id: undefined }));
    const heldFrames = sseMessages(await direct.text());
    expect(withoutId(heldFrames)).toEqual(withoutId(sseMessages(await viaSdk.text())));
    expect(heldFrames.map((m) => (m as { method?: string }).method ?? 'result')).toEqual([
      'notifications/progress',
      'notifications/tasks/status',
      'result',
    ]);
    // Ended: the result at once; unknown: the same invalid-params error.
    for (const message of [taskResult(22, taskId), taskResult(23, 'A'.repeat(32))]) {
      const once = sseMessages(await (await post(message, TASKS)).text());
      expect(once).toEqual(sseMessages(await (await post([message], TASKS)).text()));
      expect(once).toHaveLength(1);
    }
  });

  it('releases a held tasks/result whose caller goes away, and leaves the task working', async () => {
    const device = await t.device('direct-user');
    await device.synced;
    const { taskId } = await askAsTask('Task gone?', device);
    const gone = new AbortController();
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, ...TASKS, authorization: `Bearer ${agent}` },
      body: JSON.stringify(taskResult(24, taskId, 'p')),
      signal: gone.signal,
    });
    expect(response.status).toBe(200);
    await eventually(async () => (await held()) === 1);
    gone.abort();
    await eventually(async () => (await held()) === 0);
    const get = { jsonrpc: '2.0', id: 25, method: 'tasks/get', params: { taskId } };
    const [status] = sseMessages(await (await post(get, TASKS)).text()) as { result: { status: string } }[];
    expect(status?.result.status).toBe('working');
  });

  it('never serves an unsupported protocol version directly: it is refused with 400', async () => {
    const response = await post(call(4, 'get_inquiry', { inquiryId: 'x' }), {
      'mcp-protocol-version': '1999-01-01',
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Unsupported protocol version');
  });

  it('sends progress first, then the result, for a call with a progress token', async () => {
    const response = await post({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'send_inquiry', arguments: { question: 'Direct?' }, _meta: { progressToken: 'p1' } },
    });
    const reader = response.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    const [progress] = sseMessages(first) as { method: string; params: Record<string, unknown> }[];
    expect(progress?.method).toBe('notifications/progress');
    expect(progress?.params).toMatchObject({ progressToken: 'p1', _meta: { type: 'INQUIRY' } });
    await reader?.cancel();
  });
});

describe('directCallOf', () => {
  const headers = (extra: Record<string, string> = {}) => new Headers({ ...MCP_HEADERS, ...extra });
  const send = {
    jsonrpc: '2.0',
    id: 9,
    method: 'tools/call',
    params: { name: 'send_inquiry', arguments: {} },
  };

  it('takes a single tools/call of our tools with acceptable headers', () => {
    expect(directCallOf(send, headers())).toEqual({ id: 9, method: 'tools/call', params: send.params });
    expect(
      directCallOf({ ...send, id: 'a' }, headers({ 'content-type': 'application/json; charset=utf-8' })),
    ).toMatchObject({ id: 'a' });
  });

  // A held tasks/result costs what a held send_inquiry does only without a per-request SDK server.
  it('takes a single tasks/result with nothing but a task id and a progress token', () => {
    const result = { jsonrpc: '2.0', id: 7, method: 'tasks/result', params: { taskId: 'T' } };
    expect(directCallOf(result, headers())).toEqual({
      id: 7,
      method: 'tasks/result',
      params: { taskId: 'T' },
    });
    const tracked = { ...result, params: { taskId: 'T', _meta: { progressToken: 'p' } } };
    expect(directCallOf(tracked, headers())).toMatchObject({ params: tracked.params });
    expect(directCallOf({ ...result, params: {} }, headers())).toBeUndefined();
    expect(directCallOf({ ...result, params: { taskId: 1 } }, headers())).toBeUndefined();
    expect(directCallOf({ ...result, params: { taskId: 'T', name: 'x' } }, headers())).toBeUndefined();
    expect(
      directCallOf(
        { ...result, params: { taskId: 'T', _meta: { 'io.modelcontextprotocol/related-task': {} } } },
        headers(),
      ),
    ).toBeUndefined();
    expect(directCallOf([result], headers())).toBeUndefined();
  });

  it('leaves everything else to the SDK', () => {
    expect(directCallOf([send], headers())).toBeUndefined();
    expect(directCallOf({ ...send, jsonrpc: '1.0' }, headers())).toBeUndefined();
    expect(directCallOf({ ...send, method: 'tools/list' }, headers())).toBeUndefined();
    expect(directCallOf({ ...send, id: null }, headers())).toBeUndefined();
    expect(directCallOf({ ...send, params: { name: 'other' } }, headers())).toBeUndefined();
    expect(
      directCallOf({ ...send, params: { name: 'send_inquiry', arguments: 'x' } }, headers()),
    ).toBeUndefined();
    expect(directCallOf(send, headers({ accept: 'application/json' }))).toBeUndefined();
    expect(directCallOf(send, headers({ 'content-type': 'text/plain' }))).toBeUndefined();
    expect(directCallOf(send, headers({ 'mcp-protocol-version': '1999-01-01' }))).toBeUndefined();
    expect(directCallOf({ ...send, params: { ...send.params, task: {} } }, headers())).toBeUndefined();
    expect(directCallOf({ ...send, params: { ...send.params, other: 1 } }, headers())).toBeUndefined();
    expect(
      directCallOf({ ...send, params: { ...send.params, _meta: { progressToken: 1, other: 1 } } }, headers()),
    ).toBeUndefined();
    expect(directCallOf({ ...send, other: 1 }, headers())).toBeUndefined();
  });
});

describe('SseKeepAlive', () => {
  it('ticks each stream once per period from one timer, and stops when removed', async () => {
    vi.useFakeTimers({ now: 10_000 });
    try {
      const keepAlive = new SseKeepAlive(3000);
      const ticks: string[] = [];
      const a = { keepAlive: () => ticks.push('a') };
      const b = { keepAlive: () => ticks.push('b') };
      keepAlive.add(a);
      await vi.advanceTimersByTimeAsync(1000);
      keepAlive.add(b);
      await vi.advanceTimersByTimeAsync(3000);
      expect(ticks.sort()).toEqual(['a', 'b']);
      keepAlive.remove(a);
      keepAlive.remove(a);
      await vi.advanceTimersByTimeAsync(3000);
      expect(ticks.sort()).toEqual(['a', 'b', 'b']);
      keepAlive.remove(b);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
