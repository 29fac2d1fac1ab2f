import { eventually } from '@hitl/store/testing';
import { describe, expect, it } from 'vitest';
import {
  connectDevice,
  type Ledger,
  ledgerBackend,
  postMcp,
  scratchDir,
  startTestProxy,
  startWorld,
  type TestProxy,
  textOf,
  useLedgerProxies,
  type World,
} from './harness.js';

const dir = scratchDir('proxy-idem-');

type Status = { status: string; inquiryId?: string; result?: unknown };
const statusOf = (result: unknown) => (result as { structuredContent: Status }).structuredContent;

describe.each(['memory', 'redis'] as const)('idempotent calls (%s store)', (kind) => {
  let world: World;
  let t: TestProxy;
  let ledger: Ledger;
  useLedgerProxies({ kind, dir, policy: { mode: 'gated' } }, (started) => {
    ({
      world,
      ledger,
      proxies: [t],
    } = started);
  });

  it('runs 20 concurrent duplicates once: one approval, one execution, one result for all', async () => {
    const device = await connectDevice(world, `ann-${kind}`);
    const agent = await t.agent(`ann-${kind}`);
    const call = () =>
      agent.callTool({
        name: 'charge',
        arguments: { amount: 20, memo: 'duplicates' },
        _meta: { idempotencyKey: 'order-20' },
      });
    const calls = Array.from({ length: 20 }, call);
    // A duplicate that reaches the proxy after the approval gets the same stored outcome.
    const inquiry = await device.nextInquiry();
    await device.answer(inquiry.inquiryId, 'approve');
    const results = await Promise.all(calls);
    expect(device.seen).toHaveLength(1);
    expect(await ledger.entries()).toEqual([expect.objectContaining({ amount: 20, memo: 'duplicates' })]);
    expect(new Set(results.map(textOf))).toEqual(new Set(['charged 20 (entry 1)']));
    expect(results.filter((r) => (r._meta as { replayed?: boolean } | undefined)?.replayed)).toHaveLength(19);
    const again = await call();
    expect(textOf(again)).toBe('charged 20 (entry 1)');
    expect(await ledger.entries()).toHaveLength(1);
    device.socket.disconnect();
  });

  it('refuses an approved key replayed with changed arguments, without asking or running', async () => {
    const user = `ben-${kind}`;
    const device = await connectDevice(world, user);
    const agent = await t.agent(user);
    const before = (await ledger.entries()).length;
    const first = agent.callTool({
      name: 'charge',
      arguments: { amount: 10 },
      _meta: { idempotencyKey: 'pay-1' },
    });
    const inquiry = await device.nextInquiry();
    const tampered = await agent.callTool({
      name: 'charge',
      arguments: { amount: 10_000 },
      _meta: { idempotencyKey: 'pay-1' },
    });
    expect(tampered.isError).toBe(true);
    expect(textOf(tampered)).toContain('was already used for a different call');
    await device.answer(inquiry.inquiryId, 'approve');
    expect(textOf(await first)).toMatch(/^charged 10 /);
    const replayed = await agent.callTool({
      name: 'charge',
      arguments: { amount: 999 },
      _meta: { idempotencyKey: 'pay-1' },
    });
    expect(replayed.isError).toBe(true);
    expect(device.seen).toHaveLength(1);
    const entries = (await ledger.entries()).slice(before);
    expect(entries).toEqual([expect.objectContaining({ amount: 10 })]);
    device.socket.disconnect();
  });

  it('reports not_found, awaiting_approval, then done with the result', async () => {
    const user = `cat-${kind}`;
    const device = await connectDevice(world, user);
    const agent = await t.agent(user);
    const status = async (idempotencyKey: string) =>
      statusOf(await agent.callTool({ name: 'get_operation_status', arguments: { idempotencyKey } }));
    expect(await status('nope')).toEqual({ idempotencyKey: 'nope', status: 'not_found' });
    const call = agent.callTool({
      name: 'charge',
      arguments: { amount: 5 },
      _meta: { idempotencyKey: 'op-5' },
    });
    const inquiry = await device.nextInquiry();
    // The operation names its inquiry once the proxy has it back (the device may hear of it first).
    await eventually(async () =>
      expect(await status('op-5')).toMatchObject({
        status: 'awaiting_approval',
        inquiryId: inquiry.inquiryId,
      }),
    );
    await device.answer(inquiry.inquiryId, 'approve');
    await call;
    const done = await status('op-5');
    expect(done).toMatchObject({ status: 'done', inquiryId: inquiry.inquiryId });
    expect(textOf(done.result)).toMatch(/^charged 5 /);
    const other = await t.agent(`someone-else-${kind}`);
    expect(
      statusOf(await other.callTool({ name: 'get_operation_status', arguments: { idempotencyKey: 'op-5' } })),
    ).toMatchObject({ status: 'not_found' });
    device.socket.disconnect();
  });

  it('stores a declined outcome for the key: a retry gets it again and runs nothing', async () => {
    const user = `dan-${kind}`;
    const device = await connectDevice(world, user);
    const agent = await t.agent(user);
    const before = (await ledger.entries()).length;
    const call = () =>
      agent.callTool({ name: 'charge', arguments: { amount: 1 }, _meta: { idempotencyKey: 'no-way' } });
    const first = call();
    await device.answer((await device.nextInquiry()).inquiryId, 'reject');
    expect(textOf(await first)).toContain('The human declined');
    expect(textOf(await call())).toContain('The human declined');
    expect(device.seen).toHaveLength(1);
    expect(await ledger.entries()).toHaveLength(before);
    device.socket.disconnect();
  });
});

describe('two proxy nodes sharing Redis', () => {
  let world: World;
  let a: TestProxy;
  let b: TestProxy;
  let ledger: Ledger;
  useLedgerProxies({ kind: 'redis', dir, policy: { mode: 'gated' }, count: 2 }, (started) => {
    ({
      world,
      ledger,
      proxies: [a, b],
    } = started);
  });

  it('runs one key once across nodes: duplicates at the other node wait for the result', async () => {
    const device = await connectDevice(world, 'eli');
    const [onA, onB] = await Promise.all([a.agent('eli'), b.agent('eli')]);
    const call = (agent: typeof onA) =>
      agent.callTool({ name: 'charge', arguments: { amount: 77 }, _meta: { idempotencyKey: 'cross-node' } });
    const calls = [
      ...Array.from({ length: 10 }, () => call(onA)),
      ...Array.from({ length: 10 }, () => call(onB)),
    ];
    // A duplicate that reaches a node after the approval gets the same stored outcome.
    const inquiry = await device.nextInquiry();
    await device.answer(inquiry.inquiryId, 'approve');
    const results = await Promise.all(calls);
    expect(new Set(results.map(textOf))).toEqual(new Set(['charged 77 (entry 1)']));
    expect(device.seen).toHaveLength(1);
    expect(await ledger.entries()).toHaveLength(1);
    device.socket.disconnect();
  });

  it('a cancel that lands on the other node still cancels the approval, and nothing runs', async () => {
    const device = await connectDevice(world, 'gus');
    const token = await world.node.tokens.sign({ sub: 'gus', role: 'agent', name: 'test agent' });
    const before = (await ledger.entries()).length;
    const post = (url: string, message: unknown) => postMcp(url, token, message);
    const call = post(a.proxy.url, {
      jsonrpc: '2.0',
      id: 41,
      method: 'tools/call',
      params: { name: 'charge', arguments: { amount: 41 } },
    });
    const inquiry = await device.nextInquiry();
    const cancel = await post(b.proxy.url, {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 41, reason: 'changed my mind' },
    });
    expect(cancel.status).toBe(202);
    const resolved = await new Promise<{ inquiryId: string; status: string }>((resolve) =>
      device.socket.once('inquiry:resolved', resolve),
    );
    expect(resolved).toMatchObject({ inquiryId: inquiry.inquiryId, status: 'cancelled' });
    expect(await device.answer(inquiry.inquiryId, 'approve')).toMatchObject({ ok: false });
    await (await call).text().catch(() => undefined);
    // time itself is under test: nothing runs for a while after the cancelled call ends.
    await new Promise((r) => setTimeout(r, 300));
    expect(await ledger.entries()).toHaveLength(before);
    device.socket.disconnect();
  });
});

describe('decision audit in distributed mode', () => {
  it("appends approvals to the shared log the inquiry node's ops API reads", async () => {
    const world = await startWorld('redis');
    const ledger = await ledgerBackend(dir());
    const t = await startTestProxy(world, ledger.spec, { mode: 'gated' }, {}, { defaultAudit: true });
    try {
      const device = await connectDevice(world, 'fay');
      const agent = await t.agent('fay');
      const call = agent.callTool({ name: 'charge', arguments: { amount: 3 } });
      const inquiry = await device.nextInquiry();
      await device.answer(inquiry.inquiryId, 'approve');
      await call;
      const ops = await world.node.tokens.sign({ sub: 'ops', role: 'ops' });
      const list = async () => {
        const response = await fetch(`${world.node.url}/api/decisions?user=fay`, {
          headers: { authorization: `Bearer ${ops}` },
        });
        return (
          (await response.json()) as { items: { trigger: string; inquiryId: string; output?: string }[] }
        ).items;
      };
      await eventually(async () =>
        expect(await list()).toContainEqual(
          expect.objectContaining({
            trigger: 'proxy',
            inquiryId: inquiry.inquiryId,
            output: 'approve',
            decidedBy: 'human',
          }),
        ),
      );
      device.socket.disconnect();
    } finally {
      await t.close();
      await world.close();
    }
  });
});
