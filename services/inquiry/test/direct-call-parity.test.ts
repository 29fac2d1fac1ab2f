import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  RELATED_TASK_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIRECT_PROTOCOL_VERSIONS, directCallOf, KEEP_ALIVE_FRAME } from '../src/mcp/direct-call.js';
import { startTestNode, type TestNode } from './harness.js';

/*
 * The direct tools/call path against the SDK's own: a one-message batch always takes the SDK's
 * per-request server, so posting the same message alone and as a batch compares the two paths.
 * Each case also states which path the single message takes, so a case cannot pass by both going
 * the SDK's way without saying so. An SDK upgrade that changes frames, errors or headers fails here.
 */

const headersFor = (version: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': version,
});

/** The JSON-RPC messages of an SSE response body, in order. */
function sseMessages(text: string): unknown[] {
  return text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

/** What a response says: status, the SSE headers, and its JSON-RPC messages. */
async function shapeOf(response: Response) {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    headers: ['content-type', 'cache-control', 'x-accel-buffering'].map((h) => response.headers.get(h)),
    messages: type.startsWith('text/event-stream') ? sseMessages(text) : [JSON.parse(text)],
  };
}

const call = (id: number, params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params,
});
const get = (id: number) => call(id, { name: 'get_inquiry', arguments: { inquiryId: 'no-such-inquiry' } });

describe('direct tools/call parity with the SDK path', () => {
  let t: TestNode;
  let agent: string;
  beforeAll(async () => {
    t = await startTestNode('memory', { HITL_MAX_PENDING_PER_USER: '1' });
    agent = await t.token('parity-user', 'agent');
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (body: unknown, version: string, token = agent) =>
    fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...headersFor(version), authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });

  /** Posts `message` alone and as a one-message batch; both must answer alike. */
  async function expectParity(message: unknown, version: string, direct: boolean) {
    expect(directCallOf(message, new Headers(headersFor(version))) !== undefined).toBe(direct);
    const single = await shapeOf(await post(message, version));
    const viaSdk = await shapeOf(await post([message], version));
    expect(single).toEqual(viaSdk);
    return single;
  }

  it('pins only protocol versions the SDK still supports', () => {
    for (const version of DIRECT_PROTOCOL_VERSIONS) expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(version);
  });

  describe.each(DIRECT_PROTOCOL_VERSIONS)('protocol %s', (version) => {
    it.each([
      ['a result', get(1), 'result'],
      [
        'invalid params named by the schema',
        call(2, { name: 'send_inquiry', arguments: { question: '' } }),
        -32602,
      ],
      [
        'invalid params found by the service (data.code)',
        call(3, { name: 'send_inquiry', arguments: { question: 'Q?', timeoutMs: 10 ** 12 } }),
        -32602,
      ],
    ])('serves %s directly, with the SDK’s frames', async (_, message, expected) => {
      const { messages } = await expectParity(message, version, true);
      expect(messages).toHaveLength(1);
      const [only] = messages as { result?: unknown; error?: { code: number } }[];
      if (expected === 'result') expect(only?.result).toBeDefined();
      else expect(only?.error?.code).toBe(expected);
    });

    it.each([
      ['an unknown tool', call(4, { name: 'no_such_tool', arguments: {} })],
      ['a params.task request', call(5, { ...get(5).params, task: { ttl: 60_000 } })],
      ['an unknown params member', call(6, { ...get(6).params, cursor: 'x' })],
      [
        'a _meta member other than progressToken',
        call(7, { ...get(7).params, _meta: { [RELATED_TASK_META_KEY]: { taskId: 't' } } }),
      ],
      ['an unknown message member', { ...get(8), extra: true }],
      ['a request id that is not an integer', get(8.5)],
    ])('declines %s, which the SDK answers', async (_, message) => {
      await expectParity(message, version, false);
    });

    it('answers get_inquiry with params.task as the SDK does: method not found (taskSupport forbidden)', async () => {
      const { messages } = await expectParity(call(9, { ...get(9).params, task: {} }), version, false);
      expect(messages).toEqual([
        {
          jsonrpc: '2.0',
          id: 9,
          error: expect.objectContaining({ code: -32601, message: expect.stringMatching(/task/i) }),
        },
      ]);
    });

    it('answers send_inquiry with params.task alike on both paths: a CreateTaskResult, never a held call', async () => {
      const message = call(11, {
        name: 'send_inquiry',
        arguments: { question: 'Task?' },
        task: { ttl: 5000 },
      });
      expect(directCallOf(message, new Headers(headersFor(version)))).toBeUndefined();
      // Two users: this node allows one pending inquiry per user.
      const [first, second] = await Promise.all(
        ['a', 'b'].map((suffix) => t.token(`task-parity-${version}-${suffix}`, 'agent')),
      );
      const single = await shapeOf(await post(message, version, first));
      const viaSdk = await shapeOf(await post([message], version, second));
      const normal = (shape: typeof single) =>
        JSON.parse(
          JSON.stringify(shape)
            .replace(/"taskId":"[A-Za-z0-9_-]{32}"/g, '"taskId":"<task>"')
            .replace(/"\d{4}-\d\d-\d\dT[^"]+Z"/g, '"<time>"')
            .replace(/inquiry [0-9A-Z]{26}/g, 'inquiry <id>'),
        );
      expect(normal(single)).toEqual(normal(viaSdk));
      expect(single.messages).toEqual([
        {
          jsonrpc: '2.0',
          id: 11,
          result: {
            task: expect.objectContaining({ status: 'working', ttl: 5000, pollInterval: 5000 }),
            _meta: { 'io.modelcontextprotocol/model-immediate-response': expect.any(String) },
          },
        },
      ]);
    });

    it('sends the same progress frames, then the same result, for a held call', async () => {
      const user = `parity-${version}`;
      const token = await t.token(user, 'agent');
      const device = await t.token(user, 'device');
      const ask = (id: number) =>
        call(id, {
          name: 'send_inquiry',
          arguments: { question: 'Parity?' },
          _meta: { progressToken: `p${id}` },
        });
      /** Every frame of a held call, answered once its first progress frame names the inquiry. */
      const framesOf = async (message: unknown) => {
        const response = await post(message, version, token);
        const reader = response.body?.getReader();
        const first = new TextDecoder().decode((await reader?.read())?.value);
        const [progress] = sseMessages(first) as { params: { _meta: { inquiryId: string } } }[];
        const inquiryId = progress?.params._meta.inquiryId ?? '';
        const answered = await t.rest(`/api/inquiries/${inquiryId}/answer`, {
          method: 'POST',
          token: device,
          body: JSON.stringify({ response: 'yes' }),
        });
        expect(answered.status).toBe(200);
        let rest = '';
        for (;;) {
          const chunk = await reader?.read();
          if (!chunk || chunk.done) break;
          rest += new TextDecoder().decode(chunk.value);
        }
        const frames = JSON.stringify(sseMessages(first + rest));
        return {
          headers: ['content-type', 'cache-control'].map((h) => response.headers.get(h)),
          messages: JSON.parse(
            frames.replaceAll(inquiryId, '<id>').replace(/"elapsedMs":\d+/g, '"elapsedMs":0'),
          ) as { method?: string }[],
        };
      };
      expect(directCallOf(ask(10), new Headers(headersFor(version)))).toBeDefined();
      const shapes = [await framesOf(ask(10)), await framesOf([ask(10)])];
      expect(shapes[0]).toEqual(shapes[1]);
      expect(shapes[0]?.messages.map((m) => m.method ?? 'result')).toEqual([
        'notifications/progress',
        'result',
      ]);
    });
  });

  it('answers a service error (data.code, data.retryAfterMs) alike on both paths', async () => {
    const version = DIRECT_PROTOCOL_VERSIONS[0] as string;
    const token = await t.token('capped-user', 'agent');
    // One pending inquiry fills this node's per-user cap of 1; the held call is dropped, the inquiry stays.
    const held = new AbortController();
    const first = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { ...headersFor(version), authorization: `Bearer ${token}` },
      body: JSON.stringify(call(20, { name: 'send_inquiry', arguments: { question: 'First?' } })),
      signal: held.signal,
    });
    expect(first.status).toBe(200);
    held.abort();
    const message = call(21, { name: 'send_inquiry', arguments: { question: 'Second?' } });
    expect(directCallOf(message, new Headers(headersFor(version)))).toBeDefined();
    const single = await shapeOf(await post(message, version, token));
    const viaSdk = await shapeOf(await post([message], version, token));
    expect(single).toEqual(viaSdk);
    expect(single.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 21,
        error: {
          code: -32603,
          message: expect.any(String),
          data: { code: 'too_many_pending', retryAfterMs: expect.any(Number) },
        },
      },
    ]);
  });
});

describe('direct tools/call parity while the node drains', () => {
  it('answers unavailable (data.code, data.retryAfterMs) alike on both paths', async () => {
    const t = await startTestNode('memory', { HITL_DRAIN_MS: '20000' });
    const version = DIRECT_PROTOCOL_VERSIONS[0] as string;
    const headers = { ...headersFor(version), authorization: `Bearer ${await t.token('draining', 'agent')}` };
    const post = (body: unknown, signal?: AbortSignal) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    try {
      // A held call keeps the node draining while both paths are asked for a new inquiry.
      const held = new AbortController();
      expect(
        (await post(call(1, { name: 'send_inquiry', arguments: { question: 'Held?' } }), held.signal)).status,
      ).toBe(200);
      const closing = t.node.close();
      const message = call(2, { name: 'send_inquiry', arguments: { question: 'New?' } });
      expect(directCallOf(message, new Headers(headers))).toBeDefined();
      const single = await shapeOf(await post(message));
      expect(single).toEqual(await shapeOf(await post([message])));
      expect(single.messages).toEqual([
        {
          jsonrpc: '2.0',
          id: 2,
          error: {
            code: -32603,
            message: expect.stringMatching(/shutting down/),
            data: { code: 'unavailable', retryAfterMs: 1000 },
          },
        },
      ]);
      held.abort();
      await closing;
    } finally {
      await t.close();
    }
  });
});

describe('the SDK transport’s keep-alive frame', () => {
  it('is the frame the direct path writes', async () => {
    const server = new Server({ name: 'probe', version: '0' }, { capabilities: { tools: {} } });
    let finish: () => void = () => undefined;
    server.setRequestHandler(
      CallToolRequestSchema,
      () => new Promise((resolve) => (finish = () => resolve({ content: [] }))),
    );
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      keepAliveMs: 20,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: headersFor(DIRECT_PROTOCOL_VERSIONS[0] as string),
        body: JSON.stringify(call(1, { name: 'probe' })),
      }),
    );
    const reader = response.body?.getReader();
    const frame = new TextDecoder().decode((await reader?.read())?.value);
    expect(frame).toBe(KEEP_ALIVE_FRAME);
    finish();
    await reader?.cancel();
    await server.close();
  });
});
