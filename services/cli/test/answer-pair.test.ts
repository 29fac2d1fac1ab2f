import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadConfig, type RunningNode, startNode } from '@hitl/inquiry';
import type { InquiryResult } from '@hitl/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePairOption } from '../src/answer/pairing.js';
import { call, makePairing } from './pairing-helpers.js';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const exec = promisify(execFile);
const structured = (result: unknown) => (result as { structuredContent: InquiryResult }).structuredContent;

describe('--pair: what it accepts', () => {
  it('a pairing link names its node; a bare code goes to --url; anything else names --pair', () => {
    expect(parsePairOption('https://hitl.example:8443/pair#ABCD2345', 'http://127.0.0.1:8787')).toEqual({
      ok: true,
      target: { origin: 'https://hitl.example:8443', code: 'ABCD2345' },
    });
    expect(parsePairOption(' abcd-2345 ', 'http://127.0.0.1:9000/x')).toEqual({
      ok: true,
      target: { origin: 'http://127.0.0.1:9000', code: 'ABCD2345' },
    });
    expect(parsePairOption('ABCD234', 'http://127.0.0.1:8787')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^--pair: /),
    });
    expect(parsePairOption('ABCD2340', 'http://127.0.0.1:8787')).toMatchObject({ ok: false });
  });
});

describe('hitl answer --pair on a real node', () => {
  let node: RunningNode;
  const user = `u-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    node = await startNode(
      loadConfig({
        PORT: '0',
        HITL_SECRET: 'answer-pair-test-secret-long-enough-for-hs256',
        HITL_STATE_DIR: '/nonexistent-unused',
        HITL_STORE: 'memory',
        LOG_LEVEL: 'silent',
        HITL_DRAIN_MS: '0',
      }),
    );
  });
  afterAll(async () => {
    await node?.close();
  });

  it('claims the link, answers as the named device with its own token, and the code fails the second time', async () => {
    const desktop = await node.tokens.sign({ sub: user, role: 'device', name: 'Laptop' });
    const pairing = await makePairing(node.url, desktop);
    const mcp = new Client({ name: 'answer-pair-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
        requestInit: {
          headers: { Authorization: `Bearer ${await node.tokens.sign({ sub: user, role: 'agent' })}` },
        },
      }),
    );
    const asked = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Ship today?', options: ['yes', 'no'] },
    });
    await expect
      .poll(
        async () =>
          ((await call('GET', `${node.url}/api/inquiries`, { token: desktop })).body.items as []).length,
      )
      .toBe(1);

    const child = spawn(process.execPath, [BIN, 'answer', '--pair', pairing.url, '--name', 'Pi terminal'], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin.end('yes\n');
    expect(structured(await asked)).toMatchObject({
      answer: 'yes',
      resolvedBy: { deviceName: 'Pi terminal' },
    });
    expect(await exited).toBe(0);
    expect(stderr).toContain(`paired as "Pi terminal" for ${user}`);
    await mcp.close();

    const devices = await call('GET', `${node.url}/api/devices`, { token: desktop });
    expect((devices.body.items as { deviceName: string }[]).map((d) => d.deviceName)).toEqual([
      'Laptop',
      'Pi terminal',
    ]);

    const again = await exec(process.execPath, [BIN, 'answer', '--url', node.url, '--pair', pairing.code], {
      env: { PATH: process.env.PATH ?? '' },
      timeout: 10_000,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/the pairing code did not work \(mistyped, used already, or expired\)/);
  });
});
