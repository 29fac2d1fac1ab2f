import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeProcess, spawnNode, token } from '../node-process.js';

/** Finding 3: the rate limit counts JSON-RPC messages, not HTTP requests. */
describe('security: a batch spends one unit of the rate limit per message', () => {
  let node: NodeProcess;
  beforeAll(async () => {
    node = await spawnNode({ HITL_RATE_PER_MIN: '5' });
  });
  afterAll(async () => {
    await node?.kill();
  });

  /** POSTs as one agent token (the budget is per token; a token signed a second later is another). */
  async function rpcPost(user: string, message: unknown, signal?: AbortSignal): Promise<Response> {
    const agent = tokensByUser[user] ?? (await token(user, 'agent'));
    tokensByUser[user] = agent;
    return fetch(`${node.url}/mcp`, {
      method: 'POST',
      signal,
      headers: {
        authorization: `Bearer ${agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(message),
    });
  }
  const tokensByUser: Record<string, string> = {};

  const sendInquiry = (i: number) => ({
    jsonrpc: '2.0',
    id: i,
    method: 'tools/call',
    params: { name: 'send_inquiry', arguments: { question: `batched question ${i}`, timeoutMs: 60_000 } },
  });

  it('refuses a batch of 10 tools/call with a budget of 5 a minute, and creates no inquiry', async () => {
    const controller = new AbortController();
    const batch = Array.from({ length: 10 }, (_, i) => sendInquiry(i));
    const response = await rpcPost('batcher', batch, controller.signal);
    const status = response.status;
    controller.abort();
    expect(status).toBe(429);
    expect(response.headers.get('retry-after')).not.toBeNull();

    const pending = await fetch(`${node.url}/api/inquiries`, {
      headers: { authorization: `Bearer ${await token('batcher', 'device')}` },
    });
    const body = (await pending.json()) as { items: unknown[] };
    expect(body.items).toHaveLength(0);
  });

  it('spends what a batch holds: 3 + 3 messages go over a budget of 5', async () => {
    const batch = (from: number) =>
      [0, 1, 2].map((k) => ({
        jsonrpc: '2.0',
        id: from + k,
        method: 'tools/call',
        params: { name: 'get_inquiry', arguments: { inquiryId: `missing-${from + k}` } },
      }));
    const first = await rpcPost('counter', batch(0));
    expect(first.status).toBe(200);
    await first.text();
    const second = await rpcPost('counter', batch(10));
    expect(second.status).toBe(429);
  });
});
