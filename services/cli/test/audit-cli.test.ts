import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connectDevice, type TestDevice } from '@hitl/inquiry/testing';
import type { DeviceInquiry } from '@hitl/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpClient, type NodeProcess, spawnNode, token } from './node-process.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../bin/hitl.js', import.meta.url));

/** `hitl <args>`: its exit code and output (a non-zero exit is a result here, not a throw). */
async function hitl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const dirs: string[] = [];
const started: NodeProcess[] = [];
const devices: TestDevice[] = [];
afterAll(async () => {
  for (const d of devices) d.socket.disconnect();
  await Promise.all(started.map((node) => node.kill('SIGKILL')));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-audit-cli-'));
  dirs.push(dir);
  return dir;
}

/** Asks `n` questions of `user` and answers each from the phone; resolves once every answer is acknowledged. */
async function answerSome(url: string, user: string, n: number): Promise<void> {
  const phone = await connectDevice(url, await token(user, 'device'), 'phone');
  devices.push(phone);
  await phone.synced;
  const agent = await mcpClient(url, user);
  for (let i = 0; i < n; i++) {
    const result = agent.callTool({
      name: 'send_inquiry',
      arguments: { question: `Approve step ${i}?`, kind: 'approval' },
    });
    const pushed: DeviceInquiry = await phone.nextNew();
    const ack = await phone.emit('inquiry:answer', {
      inquiryId: pushed.inquiryId,
      response: i % 2 ? 'reject' : 'approve',
    });
    expect(ack).toMatchObject({ ok: true });
    await result;
  }
  await agent.close();
  phone.socket.disconnect();
}

describe('hitl audit export / verify against a real node', () => {
  it('exports the chain, verifies it offline and live, and names the seq of an edited, removed or reordered record', async () => {
    const node = await spawnNode({ HITL_STATE_DIR: tempDir() });
    started.push(node);
    await answerSome(node.url, 'auditee', 4);
    const ops = await token('auditor', 'ops');
    const exported = await hitl(['audit', 'export', '--url', node.url, '--token', ops]);
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    const last = JSON.parse(lines[4] as string);
    expect(Object.keys(last).sort()).toEqual(['checkpoint', 'publicKey', 'signature']);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ seq: 1, prevHash: '0'.repeat(64) });

    const dir = tempDir();
    const verify = (text: string, extra: string[] = []) => {
      const file = join(dir, `export-${Math.random().toString(36).slice(2)}.jsonl`);
      writeFileSync(file, text);
      return hitl(['audit', 'verify', '--file', file, ...extra]);
    };
    const good = await verify(exported.stdout, ['--public-key', last.publicKey]);
    expect(good).toMatchObject({ code: 0 });
    expect(good.stdout).toContain(`public key: ${last.publicKey}`);
    expect(good.stdout).toMatch(/ok: 4 entries/);

    const edited = [...lines];
    edited[2] = (edited[2] as string).replace('"answer":"approve"', '"answer":"reject"');
    expect(edited[2]).not.toBe(lines[2]);
    expect(await verify(edited.join('\n'))).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/FAILED at seq 3:/),
    });
    const removed = lines.filter((_, i) => i !== 1);
    expect(await verify(removed.join('\n'))).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/FAILED at seq 2:/),
    });
    const reordered = [lines[0], lines[2], lines[1], lines[3], lines[4]];
    expect(await verify(reordered.join('\n'))).toMatchObject({
      code: 1,
      stdout: expect.stringMatching(/FAILED at seq 2:/),
    });
    const otherKey = (await hitl(['audit', 'keygen'])).stderr.match(/public key[^:]*: (\S+)/)?.[1] as string;
    const pinnedWrong = await verify(exported.stdout, ['--public-key', otherKey]);
    expect(pinnedWrong).toMatchObject({
      code: 1,
      stdout: expect.stringContaining(`public key: ${otherKey}`),
    });

    const live = await hitl(['audit', 'verify', '--url', node.url, '--token', ops]);
    expect(live).toMatchObject({ code: 0, stdout: expect.stringMatching(/ok: 4 entries/) });
    const device = await hitl([
      'audit',
      'verify',
      '--url',
      node.url,
      '--token',
      await token('auditee', 'device'),
    ]);
    expect(device.code).toBe(2);
    expect(device.stderr).toMatch(/403/);
  }, 240_000);

  it('after kill -9 of the embedded node every acknowledged answer is in a chain that verifies, signed by the same key', async () => {
    const stateDir = tempDir();
    // The key kept in the state folder, not one from the environment.
    const env = { HITL_STATE_DIR: stateDir, HITL_AUDIT_KEY: '' };
    const first = await spawnNode(env);
    started.push(first);
    await answerSome(first.url, 'crashy', 3);
    const ops = await token('auditor', 'ops');
    const before = await hitl(['audit', 'verify', '--url', first.url, '--token', ops]);
    expect(before.stdout).toMatch(/ok: 3 entries/);
    await first.kill('SIGKILL');
    const second = await spawnNode(env);
    started.push(second);
    await answerSome(second.url, 'crashy', 1);
    const after = await hitl(['audit', 'verify', '--url', second.url, '--token', ops]);
    expect(after).toMatchObject({ code: 0, stdout: expect.stringMatching(/ok: 4 entries/) });
    expect(after.stdout.split('\n')[0]).toBe(before.stdout.split('\n')[0]);
    expect(readFileSync(join(stateDir, 'audit-key'), 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  }, 240_000);
});
