import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type NodeProcess, spawnNode, token } from '../node-process.js';

/** Finding 9: JSON nested deeper than 64 levels is invalid input naming the field. */
describe('security: deeply nested JSON is invalid input, not an internal error', () => {
  let node: NodeProcess;
  let logs = '';
  beforeAll(async () => {
    node = await spawnNode({});
    node.child.stdout?.on('data', (chunk: Buffer) => {
      logs += chunk.toString();
    });
  });
  afterAll(async () => {
    await node?.kill();
  });

  /** `{"a":{"a":...}}` nested `depth` levels (built as text: JSON.stringify would overflow too). */
  const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  /** The JSON-RPC error in an SSE or JSON response. */
  async function rpcError(response: Response): Promise<{ code: number; message: string }> {
    const text = await response.text();
    const json =
      text.startsWith('event:') || text.startsWith(':')
        ? (text
            .split('\n')
            .find((l) => l.startsWith('data: '))
            ?.slice(6) ?? '{}')
        : text;
    const parsed = JSON.parse(json) as
      | { error?: { code: number; message: string } }
      | { error?: { code: number; message: string } }[];
    const first = Array.isArray(parsed) ? parsed[0] : parsed;
    return first?.error ?? { code: 0, message: 'no error' };
  }

  const body = (id: number, depth: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"send_inquiry","arguments":{"question":"deep?","context":${deep(depth)}}}}`;

  async function post(raw: string, accept = 'application/json, text/event-stream'): Promise<Response> {
    return fetch(`${node.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token('deep', 'agent')}`,
        'content-type': 'application/json',
        accept,
      },
      body: raw,
    });
  }

  it('a 20,000-level context on the direct tools/call path: invalid params naming context, logged', async () => {
    const error = await rpcError(await post(body(1, 20_000)));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/context/);
    expect(error.message).toMatch(/64/);
    await eventually(() => /nested deeper than 64/.test(logs));
  });

  it('the same inside a batch (the SDK path): invalid params, not -32603', async () => {
    const error = await rpcError(await post(`[${body(2, 20_000)}]`));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/context/);
  });

  it('65 levels is refused; 50 levels is read (and judged on its other fields)', async () => {
    expect((await rpcError(await post(body(3, 65)))).code).toBe(-32602);
    const noQuestion = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"send_inquiry","arguments":{"context":${deep(50)}}}}`;
    const error = await rpcError(await post(noQuestion));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/question/);
    expect(error.message).not.toMatch(/nested/);
  });

  it('REST: an answer nested 20,000 levels is a 400 naming the field', async () => {
    const response = await fetch(`${node.url}/api/inquiries/whatever/answer`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token('deep', 'device')}`,
        'content-type': 'application/json',
      },
      body: `{"response":${deep(20_000)}}`,
    });
    expect(response.status).toBe(400);
    const out = (await response.json()) as { error: { code: string; message: string } };
    expect(out.error.code).toBe('invalid_input');
    expect(out.error.message).toMatch(/response/);
  });
});
