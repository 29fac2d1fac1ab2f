import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from './harness.js';

/** Status, the headers a refusal may carry, and the exact body text. */
interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: string;
}

const PINNED = ['www-authenticate', 'retry-after', 'connection', 'allow', 'content-type'];

function raw(url: string, method: string, headers: Record<string, string>, payload?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const picked = Object.fromEntries(PINNED.map((h) => [h, res.headers[h] as string | undefined]));
        resolve({ status: res.statusCode ?? 0, headers: picked, body: Buffer.concat(chunks).toString() });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const JSON_TYPE = 'application/json';
const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const MCP = { 'content-type': JSON_TYPE, accept: 'application/json, text/event-stream' };

/**
 * The refusals each door renders from a thrown error: `/mcp` as JSON-RPC, `/api` and other paths as
 * `{error}`, byte for byte, with their headers (the form moved from flags into each door's onError).
 */
describe('error forms per door', () => {
  let t: TestNode;
  let url: (path: string) => string;
  beforeAll(async () => {
    t = await startTestNode('memory', { HITL_RATE_PER_MIN: '2' });
    url = (path) => `${t.url}${path}`;
  });
  afterAll(async () => {
    await t?.close();
  });

  const rpcBody = (code: number, message: string, data?: object) =>
    JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null });
  const restBody = (code: string, message: string) => JSON.stringify({ error: { code, message } });

  it('renders host, token and role refusals', async () => {
    const agent = { authorization: `Bearer ${await t.token('forms', 'agent')}` };
    const host = { host: 'evil.example' };
    const hostProblem = await raw(url('/mcp'), 'POST', { ...MCP, ...agent, ...host }, rpc);
    expect(hostProblem.status).toBe(403);
    const message = (JSON.parse(hostProblem.body) as { error: { message: string } }).error.message;
    expect(hostProblem.body).toBe(rpcBody(-32000, message, { code: 'forbidden' }));
    const restHost = await raw(url('/api/inquiries'), 'GET', { ...agent, ...host });
    expect(restHost).toMatchObject({ status: 403, body: restBody('forbidden', message) });
    const webHost = await raw(url('/'), 'GET', host);
    expect(webHost).toMatchObject({ status: 403, body: restBody('forbidden', message) });
    expect((await raw(url('/healthz'), 'GET', host)).status).toBe(200);

    const none = await raw(url('/mcp'), 'POST', MCP, rpc);
    expect(none).toEqual({
      status: 401,
      headers: { 'www-authenticate': 'Bearer', connection: 'keep-alive', 'content-type': JSON_TYPE },
      body: rpcBody(-32000, 'missing bearer token', { code: 'unauthorized' }),
    });
    const restNone = await raw(url('/api/inquiries'), 'GET', {});
    expect(restNone).toEqual({
      status: 401,
      headers: { 'www-authenticate': 'Bearer', connection: 'keep-alive', 'content-type': JSON_TYPE },
      body: restBody('unauthorized', 'missing bearer token'),
    });
    const device = { authorization: `Bearer ${await t.token('forms', 'device')}` };
    const wrongRole = await raw(url('/mcp'), 'POST', { ...MCP, ...device }, rpc);
    expect(wrongRole.status).toBe(403);
    expect(wrongRole.headers['www-authenticate']).toBeUndefined();
    expect(JSON.parse(wrongRole.body)).toMatchObject({
      error: { code: -32000, data: { code: 'forbidden' } },
    });
    const restWrongRole = await raw(url('/api/decisions'), 'GET', device);
    expect(restWrongRole.status).toBe(403);
    expect(JSON.parse(restWrongRole.body)).toMatchObject({ error: { code: 'forbidden' } });
  });

  it('renders an oversized body and a spent rate budget', async () => {
    const agent = { authorization: `Bearer ${await t.token('big', 'agent')}` };
    const huge = 'x'.repeat(300_000);
    const tooLarge = await raw(url('/mcp'), 'POST', { ...MCP, ...agent }, huge);
    expect(tooLarge).toEqual({
      status: 413,
      headers: { connection: 'close', 'content-type': JSON_TYPE },
      body: rpcBody(-32600, 'request body over 262144 bytes', { code: 'payload_too_large' }),
    });
    const device = { authorization: `Bearer ${await t.token('big', 'device')}` };
    const restTooLarge = await raw(url('/api/inquiries/x/answer'), 'POST', device, huge);
    expect(restTooLarge).toEqual({
      status: 413,
      headers: { connection: 'close', 'content-type': JSON_TYPE },
      body: restBody('payload_too_large', 'request body over 262144 bytes'),
    });

    const busy = { authorization: `Bearer ${await t.token('busy', 'agent')}` };
    let limited: Answer | undefined;
    for (let i = 0; i < 4 && !limited; i++) {
      const answer = await raw(url('/mcp'), 'POST', { ...MCP, ...busy }, rpc);
      if (answer.status === 429) limited = answer;
    }
    const data = JSON.parse(limited?.body ?? '{}').error.data as { retryAfterMs: number };
    const seconds = Math.ceil(data.retryAfterMs / 1000);
    expect(limited).toEqual({
      status: 429,
      headers: {
        'retry-after': String(Math.max(1, seconds)),
        connection: 'keep-alive',
        'content-type': JSON_TYPE,
      },
      body: rpcBody(-32000, `rate limit reached; retry in ${seconds} s`, {
        code: 'rate_limited',
        retryAfterMs: data.retryAfterMs,
      }),
    });
    const ops = { authorization: `Bearer ${await t.token('ops1', 'ops')}` };
    let restLimited: Answer | undefined;
    for (let i = 0; i < 4 && !restLimited; i++) {
      const answer = await raw(url('/api/revocations'), 'POST', ops, '{"jti":"x"}');
      if (answer.status === 429) restLimited = answer;
    }
    expect(restLimited?.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(JSON.parse(restLimited?.body ?? '{}')).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('renders GET /mcp as a typed refusal: 405, Allow, data naming the code', async () => {
    const agent = { authorization: `Bearer ${await t.token('forms', 'agent')}` };
    const answer = await raw(url('/mcp'), 'GET', agent);
    expect(answer).toMatchObject({
      status: 405,
      headers: { allow: 'POST' },
      body: rpcBody(-32000, 'Method not allowed: this server is stateless; use POST', {
        code: 'method_not_allowed',
      }),
    });
  });

  it('answers unknown paths with {error} 404', async () => {
    const answer = await raw(url('/nope'), 'GET', {});
    expect(answer).toMatchObject({ status: 404, body: restBody('not_found', 'no route GET /nope') });
  });
});
