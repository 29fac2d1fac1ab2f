import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createDeviceClient, type DeviceClient, type ResolvedNotice } from '@hitl/client';
import { loadConfig, type RunningNode, startNode } from '@hitl/inquiry';
import type { InquiryResult } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const exec = promisify(execFile);
/** A private tmux server for this file, so nothing touches the person's own sessions. */
const SERVER = `hitl-answer-test-${process.pid}`;
const tmux = (...args: string[]) => exec('tmux', ['-L', SERVER, ...args]);
const structured = (result: unknown) => (result as { structuredContent: InquiryResult }).structuredContent;

/** The whole pane, scrollback included. */
async function screen(session: string): Promise<string> {
  const { stdout } = await tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-500');
  return stdout;
}

/** Waits until the pane shows `pattern` (a regex, or text to find after `from` characters). */
async function waitFor(session: string, pattern: RegExp, ms = 10_000): Promise<string> {
  let seen = '';
  await eventually(
    async () => {
      seen = await screen(session);
      expect(seen, 'what the terminal shows').toMatch(pattern);
    },
    ms,
    100,
  );
  return seen;
}

/** Types a line the way a person does: the characters, then Enter. */
async function typeLine(session: string, line: string): Promise<void> {
  if (line) await tmux('send-keys', '-t', session, '-l', line);
  await tmux('send-keys', '-t', session, 'Enter');
}

describe('hitl answer in a real terminal (tmux)', () => {
  let node: RunningNode;
  const user = `u-${randomUUID().slice(0, 8)}`;
  const clients: { close(): unknown }[] = [];
  beforeAll(async () => {
    node = await startNode(
      loadConfig({
        PORT: '0',
        HITL_SECRET: 'answer-tty-test-secret-long-enough-for-hs256',
        HITL_STATE_DIR: '/nonexistent-unused',
        HITL_STORE: 'memory',
        LOG_LEVEL: 'silent',
        HITL_SWEEP_MS: '100',
        HITL_DRAIN_MS: '0',
        HITL_DEVICE_TIMEOUT_MS: '40000',
        HITL_SERVICE_TIMEOUT_MS: '50000',
        HITL_CLIENT_TIMEOUT_MS: '60000',
      }),
    );
  });
  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
    for (const client of clients) await client.close();
    await node?.close();
  });

  const agent = async (sub = user) => {
    const client = new Client({ name: 'answer-tty-agent', version: '1.0.0' });
    const agentToken = await node.tokens.sign({ sub, role: 'agent', name: 'shop assistant' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${node.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${agentToken}` } },
      }),
    );
    clients.push(client);
    return client;
  };

  const phone = async (): Promise<DeviceClient> => {
    const device = createDeviceClient({
      url: node.url,
      token: await node.tokens.sign({ sub: user, role: 'device' }),
      deviceName: 'Phone',
    });
    clients.push(device);
    return device;
  };

  /** `hitl answer` without a terminal, `lines` piped to it at once; its output and exit code. */
  const pipedAnswer = async (lines: string) => {
    const child = spawn(process.execPath, [BIN, 'answer', '--url', node.url, '--name', 'Script'], {
      env: {
        PATH: process.env.PATH ?? '',
        HITL_DEVICE_TOKEN: await node.tokens.sign({ sub: user, role: 'device' }),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdin.end(lines);
    return { exited, output: () => output };
  };

  it('receives a form, answers it field by field; an approval answered on the phone closes; Ctrl-C exits', async () => {
    const deviceToken = await node.tokens.sign({ sub: user, role: 'device' });
    const command = [
      `HITL_DEVICE_TOKEN=${deviceToken}`,
      `'${process.execPath}' '${BIN}' answer --url ${node.url} --name 'Desk terminal'`,
      '; echo "[exit $?]"; sleep 600',
    ].join(' ');
    await tmux('new-session', '-d', '-s', 'answer', '-x', '120', '-y', '50', command);
    await waitFor('answer', /No questions waiting/);

    const mcp = await agent();
    const onPhone = await phone();
    const phoneNotices: ResolvedNotice[] = [];
    onPhone.on('resolved', (notice) => phoneNotices.push(notice));

    const form = mcp.callTool(
      {
        name: 'send_inquiry',
        arguments: {
          question: 'Which shirt should I order?',
          questions: [
            { id: 'size', prompt: 'Size', kind: 'choice', options: ['S', 'M', 'L'], required: true },
            { id: 'budget', prompt: 'Budget in EUR', kind: 'number', required: true },
            { id: 'gift', prompt: 'Gift wrap?', kind: 'boolean' },
          ],
          defaultAnswer: { size: 'M' },
        },
      },
      undefined,
      { timeout: 60_000 },
    );
    await waitFor('answer', /Question from shop assistant for u-[\w-]+ -- 0:[34]\d left[\s\S]*\(1\/3\) Size/);
    await waitFor('answer', /\[0:[34]\d\] size> $/m);
    await typeLine('answer', ''); // keeps the prefilled M
    await waitFor('answer', /budget> $/m);
    await typeLine('answer', 'forty');
    await waitFor('answer', /! enter a number/);
    await typeLine('answer', '40');
    await waitFor('answer', /gift> $/m);
    await typeLine('answer', 'y');
    await waitFor('answer', /Send them\? \[Y\/n\]/);
    await typeLine('answer', '');

    expect(structured(await form)).toMatchObject({
      status: 'answered',
      answer: { size: 'M', budget: 40, gift: true },
      resolvedBy: { kind: 'human', deviceName: 'Desk terminal' },
    });
    await waitFor('answer', /Which shirt should I order\?: answered on this device/);
    // The other device is told which device answered.
    await eventually(() => phoneNotices[0]?.resolvedBy?.deviceName === 'Desk terminal');

    const approval = mcp.callTool(
      {
        name: 'send_inquiry',
        arguments: {
          question: 'May I delete 3 invoices?',
          kind: 'approval',
          action: { server: 'billing', tool: 'delete_invoices', arguments: { ids: [1, 2, 3] } },
        },
      },
      undefined,
      { timeout: 60_000 },
    );
    const shown = await waitFor('answer', /approve\/reject> $/m);
    expect(shown).toContain('tool:      delete_invoices');
    expect(shown).toMatch(/"ids": \[\s+1,\s+2,\s+3\s+\]/);
    await tmux('send-keys', '-t', 'answer', '-l', 'a'); // started typing, then the phone was quicker
    const pending = onPhone.getSnapshot().inquiries[0];
    expect(pending?.question).toBe('May I delete 3 invoices?');
    expect(await onPhone.answer(pending!.inquiryId, 'reject')).toEqual({ ok: true, status: 'answered' });
    await waitFor('answer', /May I delete 3 invoices\?: answered elsewhere \(on Phone\)/);
    expect(structured(await approval)).toMatchObject({
      answer: 'reject',
      resolvedBy: { kind: 'human', deviceName: 'Phone' },
    });
    await waitFor('answer', /No questions waiting[^\n]*\n(.*\n)*> a$/m);

    await tmux('send-keys', '-t', 'answer', 'C-c');
    const end = await waitFor('answer', /\[exit \d+\]/, 8000);
    expect(end).toContain('[exit 130]');
    expect(end).not.toContain('kept the process alive');
  });

  it('a token the node refuses ends the command at once with exit code 2, saying why', async () => {
    const agentToken = await node.tokens.sign({ sub: user, role: 'agent' });
    const run = exec(process.execPath, [BIN, 'answer', '--url', node.url], {
      env: { PATH: process.env.PATH ?? '', HITL_DEVICE_TOKEN: agentToken },
      timeout: 10_000,
    });
    const failure = await run.then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    expect(failure.code).toBe(2);
    expect(failure.stdout).toMatch(/The server refused this device: forbidden/);
  });

  it('without a terminal, piped lines answer the waiting questions in order, then it exits 0', async () => {
    const mcp = await agent();
    const ask = (args: Record<string, unknown>) =>
      mcp.callTool({ name: 'send_inquiry', arguments: args }, undefined, { timeout: 60_000 });
    const colour = ask({ question: 'Which colour?', options: ['Red', 'Blue'] });
    const onPhone = await phone();
    await eventually(() => onPhone.getSnapshot().inquiries.length === 1);
    const name = ask({ question: 'Your name?' });
    await eventually(() => onPhone.getSnapshot().inquiries.length === 2);

    // Written at once, before the device has even connected: each line waits for its question.
    const piped = await pipedAnswer('2\nAda Lovelace\n');

    expect(structured(await colour)).toMatchObject({ answer: 'Blue', resolvedBy: { deviceName: 'Script' } });
    expect(structured(await name)).toMatchObject({
      answer: 'Ada Lovelace',
      resolvedBy: { deviceName: 'Script' },
    });
    expect(await piped.exited).toBe(0);
    expect(piped.output()).toContain('Which colour?: answered on this device');
    expect(piped.output()).toContain('Your name?: answered on this device');
  });

  it('piped lines edit an approval, approve it for 15 minutes, and reject another with a reason', async () => {
    const mcp = await agent();
    const ask = (args: Record<string, unknown>) =>
      mcp.callTool({ name: 'send_inquiry', arguments: args }, undefined, { timeout: 60_000 });
    const action = {
      server: 'files',
      tool: 'delete',
      arguments: { path: '/srv/cache', keep: 3 },
      inputSchema: { type: 'object', properties: { path: { type: 'string' }, keep: { type: 'integer' } } },
    };
    const edited = ask({
      question: 'Delete the cache?',
      kind: 'approval',
      action,
      editable: ['path', 'keep'],
    });
    const onPhone = await phone();
    await expect.poll(() => onPhone.getSnapshot().inquiries.length).toBe(1);
    const second = ask({
      question: 'Delete the logs?',
      kind: 'approval',
      action: { ...action, tool: 'purge' },
    });
    await expect.poll(() => onPhone.getSnapshot().inquiries.length).toBe(2);

    const piped = await pipedAnswer('e\n//srv/cache/tmp\n\na 15\nr keep the logs a week\n');

    expect(structured(await edited)).toMatchObject({
      answer: 'approve',
      arguments: { path: '/srv/cache/tmp', keep: 3 },
      changed: ['path'],
    });
    expect(structured(await second)).toMatchObject({ answer: 'reject', reason: 'keep the logs a week' });
    expect(await piped.exited).toBe(0);
    const listed = await fetch(`${node.url}/api/approvals/standing`, {
      headers: { Authorization: `Bearer ${await node.tokens.sign({ sub: user, role: 'device' })}` },
    });
    expect(((await listed.json()) as { items: unknown[] }).items).toEqual([
      expect.objectContaining({ server: 'files', tool: 'delete', uses: 0 }),
    ]);
  });

  it('a question with a 3-day answer window: days left and the end in local time; still answerable after the hold', async () => {
    const sub = `${user}-window`;
    const deviceToken = await node.tokens.sign({ sub, role: 'device' });
    // A fixed zone and locale, so "answer by" can be checked to the minute.
    const command = [
      `TZ=UTC LC_ALL=en_GB HITL_DEVICE_TOKEN=${deviceToken}`,
      `'${process.execPath}' '${BIN}' answer --url ${node.url} --name 'Desk terminal'`,
      '; echo "[exit $?]"; sleep 600',
    ].join(' ');
    await tmux('new-session', '-d', '-s', 'window', '-x', '120', '-y', '50', command);
    await waitFor('window', /No questions waiting/);

    const mcp = await agent(sub);
    const t0 = Date.now();
    const asked = mcp.callTool(
      {
        name: 'send_inquiry',
        arguments: {
          question: 'Which week suits you for the visit?',
          options: ['this week', 'next week'],
          timeoutMs: 2000,
          answerWithinMs: 3 * 86_400_000,
        },
      },
      undefined,
      { timeout: 60_000 },
    );
    const shown = await waitFor(
      'window',
      /Question from shop assistant for u-[\w-]+ -- \d d \d+ h left, answer by .+\n/,
    );
    // The end of the window on this computer's clock, to the minute (either side of a second's skew).
    const end = t0 + 3 * 86_400_000;
    const hhmm = (at: number) => {
      const d = new Date(at);
      const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
      return `${day} ${d.getUTCHours()}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
    };
    // Some locales pad the hour ("00:39"), others do not ("0:39"): compare it as a number.
    const until = shown.match(/answer by (.+)\n/)?.[1]?.replace(/ 0(\d):/, ' $1:');
    expect([hhmm(end - 1000), hhmm(end + 2000)]).toContain(until);
    expect(shown).toMatch(/-- 3 d 0 h left, answer by/);
    expect(shown).toContain('    2) next week');
    await waitFor('window', /\[3 d 0 h\] pick> $/m);

    // The hold ends: the agent hears "pending"; the terminal keeps the question open, time left in days.
    const first = structured(await asked);
    expect(first.status).toBe('pending');
    // time itself is under test: past the hold, nothing ends the question on the terminal for a while.
    await new Promise((r) => setTimeout(r, 1500));
    const later = await screen('window');
    expect(later).not.toMatch(/time ran out/);
    expect(later).toMatch(/\[3 d 0 h\] pick> $/m);

    const collected = mcp.callTool(
      { name: 'get_inquiry', arguments: { inquiryId: first.inquiryId, waitMs: 20_000 } },
      undefined,
      { timeout: 60_000 },
    );
    await typeLine('window', '2');
    expect(structured(await collected)).toMatchObject({
      inquiryId: first.inquiryId,
      status: 'answered',
      answer: 'next week',
      resolvedBy: { kind: 'human', deviceName: 'Desk terminal' },
    });
    await waitFor('window', /Which week suits you for the visit\?: answered on this device/);
    await tmux('send-keys', '-t', 'window', 'C-c');
    expect(await waitFor('window', /\[exit \d+\]/, 8000)).toContain('[exit 130]');
  });
});
