import { loadConfig, type RunningNode, startNode } from '@hitl/inquiry';
import type { InquiryResult, Role } from '@hitl/protocol';
import { TEST_AUDIT_KEY } from '@hitl/store/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { DeviceClient, DeviceSnapshot } from '../src/index.js';

export const SECRET = 'client-test-secret-long-enough-for-hs256!!';

/** A real inquiry node on a loopback port (memory store unless REDIS_URL is given). */
export async function startRealNode(env: Record<string, string> = {}): Promise<RunningNode> {
  return startNode(
    loadConfig({
      PORT: '0',
      HITL_SECRET: SECRET,
      HITL_AUDIT_KEY: TEST_AUDIT_KEY,
      HITL_STATE_DIR: '/nonexistent-unused',
      HITL_STORE: 'memory',
      LOG_LEVEL: 'silent',
      HITL_SWEEP_MS: '100',
      HITL_DRAIN_MS: '0',
      ...env,
    }),
  );
}

export const token = (node: RunningNode, sub: string, role: Role, name?: string) =>
  node.tokens.sign({ sub, role, ...(name ? { name } : {}) });

/** An agent: the official MCP SDK client over Streamable HTTP. */
export async function agent(node: RunningNode, user: string): Promise<Client> {
  const client = new Client({ name: 'client-test-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${await token(node, user, 'agent', 'test agent')}` } },
  });
  await client.connect(transport);
  return client;
}

export const structured = (result: unknown) =>
  (result as { structuredContent: InquiryResult }).structuredContent;

/** Resolves with the first snapshot that passes `test` (checking the current one first). */
export function until(device: DeviceClient, test: (s: DeviceSnapshot) => boolean, ms = 8000) {
  return new Promise<DeviceSnapshot>((resolve, reject) => {
    if (test(device.getSnapshot())) return resolve(device.getSnapshot());
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no matching snapshot within ${ms} ms: ${JSON.stringify(device.getSnapshot())}`));
    }, ms);
    const stop = device.subscribe(() => {
      if (!test(device.getSnapshot())) return;
      clearTimeout(timer);
      stop();
      resolve(device.getSnapshot());
    });
  });
}
