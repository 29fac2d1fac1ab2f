import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeldCalls } from '../src/http/held-calls.js';
import {
  connectDevice,
  ledgerBackend,
  postMcp,
  startTestProxy,
  startWorld,
  type TestProxy,
  type World,
} from './harness.js';

/**
 * Issue 34 item 7 on the proxy: two agents on one token reusing a JSON-RPC id. No call overwrites
 * another; a cancel that names both cancels neither; a shutdown aborts both.
 */
describe('HeldCalls: two calls under one key', () => {
  it('keeps both: a cancel is ambiguous and aborts neither; cancelAll aborts both', async () => {
    const calls = new HeldCalls();
    const signals: AbortSignal[] = [];
    const release: (() => void)[] = [];
    const runs = [1, 2].map(() =>
      calls.run('k', (signal) => {
        signals.push(signal);
        return new Promise<void>((resolve) => release.push(resolve));
      }),
    );
    expect(calls.size).toBe(2);
    expect(calls.cancel('k', 'cancelled by the agent')).toBe('ambiguous');
    expect(signals.map((s) => s.aborted)).toEqual([false, false]);
    expect(calls.cancel('other', 'cancelled by the agent')).toBe('none');
    calls.cancelAll('proxy shutting down');
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
    for (const done of release) done();
    await Promise.all(runs);
    expect(calls.size).toBe(0);
    // One call alone under its key is cancelled.
    const one = calls.run(
      'k',
      (signal) => new Promise((resolve) => signal.addEventListener('abort', resolve)),
    );
    expect(calls.cancel('k', 'cancelled by the agent')).toBe('cancelled');
    await one;
  });
});

describe('proxy: a cancel that names two agents’ calls cancels neither', () => {
  let world: World;
  let t: TestProxy;
  let dir = '';
  let ledger: Awaited<ReturnType<typeof ledgerBackend>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxy-collision-'));
    world = await startWorld('memory');
    ledger = await ledgerBackend(dir);
    t = await startTestProxy(world, ledger.spec, { mode: 'gated' });
  });
  afterAll(async () => {
    await t?.close();
    await world?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('both approvals stay answerable and both run once approved', async () => {
    const device = await connectDevice(world, 'twins');
    const token = await world.node.tokens.sign({ sub: 'twins', role: 'agent', name: 'shared token' });
    const post = (message: unknown) => postMcp(t.proxy.url, token, message);
    const charge = (amount: number) =>
      post({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'charge', arguments: { amount } },
      });
    const calls = [charge(1), charge(2)];
    const inquiries = [await device.nextInquiry(), await device.nextInquiry()];
    // Handled before the 202: a cancel held here aborts its call synchronously.
    const cancel = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 9 },
    });
    expect(cancel.status).toBe(202);
    // Both at once: the world's service tier (2.5 s) bounds each approval's hold.
    const answers = await Promise.all(
      inquiries.map((inquiry) => device.answer(inquiry.inquiryId, 'approve')),
    );
    for (const answer of answers) expect(answer).toMatchObject({ ok: true });
    const texts = await Promise.all(calls.map(async (call) => (await call).text()));
    const ran = texts.map((text) => /charged (\d) /.exec(text)?.[1]);
    expect(ran.sort(), texts.join('\n')).toEqual(['1', '2']);
    const amounts = (await ledger.entries()).map((e) => (e as { amount: number }).amount);
    expect(amounts.sort()).toEqual([1, 2]);
    device.socket.disconnect();
  });
});
