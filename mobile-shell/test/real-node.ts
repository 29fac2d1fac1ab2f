import { createDeviceClient, type DeviceClient, type DeviceSnapshot } from '@hitl/client';
import { loadConfig, type RunningNode, startNode } from '@hitl/inquiry';
import type { InquiryResult } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** A real inquiry node on a loopback port (memory store). */
export function startRealNode(): Promise<RunningNode> {
  return startNode(
    loadConfig({
      PORT: '0',
      HITL_SECRET: 'mobile-shell-test-secret-long-enough-for-hs256',
      HITL_STATE_DIR: '/nonexistent-unused',
      HITL_STORE: 'memory',
      LOG_LEVEL: 'silent',
      HITL_SWEEP_MS: '100',
      HITL_DRAIN_MS: '0',
      HITL_DEVICE_TIMEOUT_MS: '20000',
      HITL_SERVICE_TIMEOUT_MS: '30000',
      HITL_CLIENT_TIMEOUT_MS: '40000',
    }),
  );
}

/** A device of `user` on the node, as the web page or the shell makes one. */
export async function device(node: RunningNode, user: string, deviceName: string): Promise<DeviceClient> {
  const token = await node.tokens.sign({ sub: user, role: 'device' });
  return createDeviceClient({ url: node.url, token, deviceName });
}

/** An agent: the official MCP SDK client over Streamable HTTP. */
export async function agent(node: RunningNode, user: string): Promise<Client> {
  const client = new Client({ name: 'mobile-shell-test-agent', version: '1.0.0' });
  const token = await node.tokens.sign({ sub: user, role: 'agent', name: 'shop assistant' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

export const structured = (result: unknown) =>
  (result as { structuredContent: InquiryResult }).structuredContent;

/** Resolves with the first snapshot that passes `test` (checking the current one first). */
export function until(client: DeviceClient, test: (s: DeviceSnapshot) => boolean, ms = 8000) {
  return new Promise<DeviceSnapshot>((resolve, reject) => {
    if (test(client.getSnapshot())) return resolve(client.getSnapshot());
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no matching snapshot within ${ms} ms: ${JSON.stringify(client.getSnapshot())}`));
    }, ms);
    const stop = client.subscribe(() => {
      if (!test(client.getSnapshot())) return;
      clearTimeout(timer);
      stop();
      resolve(client.getSnapshot());
    });
  });
}
