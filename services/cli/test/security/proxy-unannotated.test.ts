import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DeviceInquiry } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type NodeProcess, SECRET, spawnNode, token } from '../node-process.js';

const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
/** A real MCP backend (official SDK): `jot` has no annotations; each run appends a line to LEDGER_FILE. */
const LEDGER = fileURLToPath(new URL('../../../mcp-proxy/test/fixtures/ledger-server.mjs', import.meta.url));

/** Finding 4: a tool without annotations is destructive, so it asks a human. */
describe('security: the proxy asks before running an unannotated tool, whatever the agent claims', () => {
  let node: NodeProcess;
  let agent: Client;
  let dir = '';
  let ledger = '';
  beforeAll(async () => {
    node = await spawnNode({});
    dir = await mkdtemp(join(tmpdir(), 'hitl-proxy-sec-'));
    ledger = join(dir, 'ledger.txt');
    await writeFile(ledger, '');
    agent = new Client({ name: 'security-test', version: '1.0.0' });
    await agent.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          BIN,
          'proxy',
          '--stdio',
          '--backend-cmd',
          `${process.execPath} ${LEDGER}`,
          '--user',
          'alice',
          '--inquiry-url',
          node.url,
        ],
        env: { PATH: process.env.PATH ?? '', HITL_SECRET: SECRET, LEDGER_FILE: ledger, LOG_LEVEL: 'silent' },
        stderr: 'ignore',
      }),
    );
  });
  afterAll(async () => {
    await agent?.close();
    await node?.kill();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const pendingApprovals = async (): Promise<DeviceInquiry[]> => {
    const response = await fetch(`${node.url}/api/inquiries`, {
      headers: { authorization: `Bearer ${await token('alice', 'device')}` },
    });
    const { items } = (await response.json()) as { items: DeviceInquiry[] };
    return items.filter((i) => i.kind === 'approval');
  };

  it('confidence 0.95 on a tool with no annotations: a human is asked, nothing runs until then', async () => {
    const call = agent.callTool({
      name: 'jot',
      arguments: { text: 'wipe the books' },
      _meta: { confidence: 0.95 },
    });
    let settled = false;
    void call.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    // A person is asked; until they answer, nothing has run and the call waits.
    let approval: DeviceInquiry | undefined;
    await eventually(async () => {
      approval = (await pendingApprovals()).find((i) => i.action?.tool === 'jot');
      return approval !== undefined;
    });
    expect(await readFile(ledger, 'utf8')).toBe('');
    expect(settled).toBe(false);
    const rejected = await fetch(`${node.url}/api/inquiries/${approval?.inquiryId}/answer`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token('alice', 'device')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ response: 'reject' }),
    });
    expect(rejected.status).toBe(200);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(await readFile(ledger, 'utf8')).toBe('');
  });
});
