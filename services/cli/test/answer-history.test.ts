import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpClient, type NodeProcess, spawnNode, token } from './node-process.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../bin/hitl.js', import.meta.url));

describe('hitl answer --history', () => {
  let node: NodeProcess;
  const user = `u-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    node = await spawnNode({ HITL_STORE: 'memory' });
  });
  afterAll(async () => {
    await node?.kill();
  });

  /** Asks through MCP, then ends it over REST as the device named `device`. */
  async function askAndEnd(agent: Client, question: string, device: string, end: 'answer' | 'refuse') {
    const call = agent.callTool({ name: 'send_inquiry', arguments: { question, options: ['S', 'M'] } });
    const headers = {
      Authorization: `Bearer ${await token(user, 'device')}`,
      'content-type': 'application/json',
      'x-device-name': device,
    };
    let id: string | undefined;
    while (!id) {
      const page = (await (await fetch(`${node.url}/api/inquiries?status=pending`, { headers })).json()) as {
        items: { inquiryId: string; question: string }[];
      };
      id = page.items.find((i) => i.question === question)?.inquiryId;
    }
    const body = end === 'answer' ? JSON.stringify({ response: 'M' }) : undefined;
    const response = await fetch(`${node.url}/api/inquiries/${id}/${end}`, { method: 'POST', headers, body });
    expect(response.status).toBe(200);
    await call;
  }

  it('prints the past inquiries, newest first, with what was answered and on which device', async () => {
    const history = (tokenValue: string) =>
      run(process.execPath, [BIN, 'answer', '--history', '--url', node.url], {
        env: { ...process.env, HITL_DEVICE_TOKEN: tokenValue },
      });
    const empty = await history(await token(user, 'device'));
    expect(empty.stdout).toBe('Nothing answered yet.\n');

    const agent = await mcpClient(node.url, user);
    await askAndEnd(agent, 'Which size?', 'Phone', 'answer');
    await askAndEnd(agent, 'Gift wrap?', 'Laptop', 'refuse');
    await agent.close();

    const { stdout } = await history(await token(user, 'device'));
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/Gift wrap\?$/);
    expect(lines[1]).toMatch(/^ {4}declined on Laptop · asked by /);
    expect(lines[2]).toMatch(/Which size\?$/);
    expect(lines[3]).toMatch(/^ {4}answered on Phone: "M" · asked by /);

    // Another person's device sees none of it; an agent token is refused (exit 2).
    const other = await history(await token(`u-${randomUUID().slice(0, 8)}`, 'device'));
    expect(other.stdout).toBe('Nothing answered yet.\n');
    const refused = await history(await token(user, 'agent')).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toMatch(/refused the history/);
  });
});
