import { describe, expect, it } from 'vitest';
import {
  connectDevice,
  type Ledger,
  postMcp,
  scratchDir,
  type TestProxy,
  useLedgerProxies,
  type World,
} from './harness.js';

/** Issue 34 item 7 on the proxy: two agents on one token reusing a JSON-RPC id (HeldCalls: @hitl/mcp-http's test). */
describe('proxy: a cancel that names two agents’ calls cancels neither', () => {
  let world: World;
  let t: TestProxy;
  const dir = scratchDir('proxy-collision-');
  let ledger: Ledger;
  useLedgerProxies({ kind: 'memory', dir, policy: { mode: 'gated' } }, (started) => {
    ({
      world,
      ledger,
      proxies: [t],
    } = started);
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
