import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { deliverProgressBeforeResults } from '../src/backend/progress-order.js';

/**
 * A server end that writes a tool's last progress and its result in one synchronous turn, as a
 * stdio pipe does when both lines arrive in one chunk.
 */
async function connectToEagerServer(wrap: boolean) {
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const errors: string[] = [];
  serverEnd.onmessage = (message: JSONRPCMessage) => {
    if (!('method' in message) || !('id' in message)) return;
    if (message.method === 'initialize') {
      void serverEnd.send({
        jsonrpc: '2.0',
        id: message.id,
        result: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: { tools: {} },
          serverInfo: { name: 'eager', version: '1.0.0' },
        },
      });
      return;
    }
    const token = (message.params?._meta as { progressToken?: number } | undefined)?.progressToken;
    void serverEnd.send({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: token ?? 0, progress: 1, total: 1 },
    });
    void serverEnd.send({ jsonrpc: '2.0', id: message.id, result: { content: [] } });
  };
  await serverEnd.start();
  const client = new Client({ name: 'test', version: '1.0.0' });
  client.onerror = (error) => errors.push(error.message);
  await client.connect(clientEnd);
  if (wrap) deliverProgressBeforeResults(clientEnd);
  return { client, errors };
}

async function callWithProgress(client: Client) {
  const seen: number[] = [];
  await client.request(
    { method: 'tools/call', params: { name: 'any', arguments: {} } },
    CallToolResultSchema,
    { onprogress: (p) => seen.push(p.progress) },
  );
  // Let any notification job still queued run before looking.
  await new Promise((resolve) => setImmediate(resolve));
  return seen;
}

describe('progress that arrives in the same read as its result', () => {
  it('is lost by the bare SDK client (the race this works around)', async () => {
    const { client, errors } = await connectToEagerServer(false);
    expect(await callWithProgress(client)).toEqual([]);
    expect(errors.join()).toMatch(/unknown token/);
  });

  it('reaches onprogress before the result once the transport is wrapped', async () => {
    const { client, errors } = await connectToEagerServer(true);
    expect(await callWithProgress(client)).toEqual([1]);
    expect(errors).toEqual([]);
  });
});
