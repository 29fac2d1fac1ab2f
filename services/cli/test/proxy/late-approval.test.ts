import { eventually, sleep } from '@hitl/store/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  connectDevice,
  type Ledger,
  scratchDir,
  type TestProxy,
  textOf,
  useLedgerProxies,
  type World,
} from './harness.js';

// A 3 s hold inside a 5 s service tier; approvals may wait 20 s (or 6 s for the one that runs out).
const SLOW_TIERS = {
  HITL_DEVICE_TIMEOUT_MS: '1500',
  HITL_SERVICE_TIMEOUT_MS: '5000',
  HITL_CLIENT_TIMEOUT_MS: '8000',
};
const POLICY = {
  mode: 'gated',
  approvalTimeoutMs: 3000,
  approvalWindowMs: 20_000,
  tools: { jot: { approvalWindowMs: 6000 } },
};

/** The owner of `user`'s operation `key` as the proxy's store has it (every node shares it on Redis). */
const ownerOf = async (t: TestProxy, user: string, key: string) =>
  (await t.proxy.core.calls.store.getOperation(user, key))?.owner;

/** Resolves once another caller than `owner` has adopted the operation: it now waits on the approval. */
const adopted = (t: TestProxy, user: string, key: string, owner: string | undefined) =>
  eventually(async () => (await ownerOf(t, user, key)) !== owner);

type Approval = { outcome: string; stage?: string; inquiryId?: string; answerBy?: string };
const approvalOf = (result: unknown) =>
  ((result as CallToolResult)._meta as { approval?: Approval } | undefined)?.approval;
type Status = { status: string; inquiryId?: string; result?: CallToolResult };
const statusOf = (result: unknown) => (result as { structuredContent: Status }).structuredContent;

const dir = scratchDir('proxy-late-');

describe('an approval that outlives the hold, two proxy nodes on one Redis', () => {
  let world: World;
  let a: TestProxy;
  let b: TestProxy;
  let ledger: Ledger;
  useLedgerProxies({ kind: 'redis', dir, policy: POLICY, count: 2, env: SLOW_TIERS }, (started) => {
    ({
      world,
      ledger,
      proxies: [a, b],
    } = started);
  });

  it('returns pending at the hold, and runs the backend once when the person approves at ~6 s', async () => {
    const device = await connectDevice(world, 'lea');
    const [onA, onB] = await Promise.all([a.agent('lea'), b.agent('lea')]);
    const charge = (agent: typeof onA) =>
      agent.callTool({ name: 'charge', arguments: { amount: 30 }, _meta: { idempotencyKey: 'late-1' } });
    const started = Date.now();
    const first = charge(onA);
    const inquiry = await device.nextInquiry();
    expect(inquiry.deadlines.answerBy).toBeGreaterThan(Date.now() + 10_000);
    const pending = await first;
    const heldMs = Date.now() - started;
    expect(heldMs).toBeGreaterThanOrEqual(2500);
    expect(pending.isError).toBeFalsy();
    expect(textOf(pending)).toMatch(/^Not run yet: "charge" on ledger is waiting for a person to approve it/);
    expect(textOf(pending)).toContain('Nothing has run and nothing is approved yet');
    expect(textOf(pending)).toContain('"idempotencyKey": "late-1"');
    expect(approvalOf(pending)).toMatchObject({ outcome: 'pending', inquiryId: inquiry.inquiryId });
    expect(await ledger.entries()).toEqual([]);

    // time itself is under test: the person approves at ~6 s, past the hold and the 5 s service tier.
    await sleep(Math.max(0, 6000 - (Date.now() - started)));
    expect(await device.answer(inquiry.inquiryId, 'approve')).toMatchObject({ ok: true });
    // Concurrent collectors on both nodes: retries with the same key, and get_operation_status.
    const collectors = await Promise.all([
      charge(onA),
      charge(onB),
      charge(onB),
      onA.callTool({ name: 'get_operation_status', arguments: { idempotencyKey: 'late-1', waitMs: 4000 } }),
      onB.callTool({ name: 'get_operation_status', arguments: { idempotencyKey: 'late-1', waitMs: 4000 } }),
    ]);
    for (const retry of collectors.slice(0, 3)) expect(textOf(retry)).toBe('charged 30 (entry 1)');
    for (const status of collectors.slice(3)) {
      expect(statusOf(status)).toMatchObject({ status: 'done', inquiryId: inquiry.inquiryId });
      expect(textOf(statusOf(status).result)).toBe('charged 30 (entry 1)');
    }
    const again = await charge(onB);
    expect(textOf(again)).toBe('charged 30 (entry 1)');
    expect((again._meta as { replayed?: boolean }).replayed).toBe(true);
    expect(await ledger.entries()).toEqual([expect.objectContaining({ amount: 30 })]);
    expect(device.seen).toHaveLength(1);
    const approvals = [...a.decisions, ...b.decisions].filter((d) => d.outcome === 'approved');
    expect(approvals).toHaveLength(1);
    device.socket.disconnect();
  });

  it('a retry that is waiting when the person approves gets the result', async () => {
    const device = await connectDevice(world, 'max');
    const [onA, onB] = await Promise.all([a.agent('max'), b.agent('max')]);
    const before = (await ledger.entries()).length;
    const charge = (agent: typeof onA) =>
      agent.callTool({ name: 'charge', arguments: { amount: 31 }, _meta: { idempotencyKey: 'late-2' } });
    const first = charge(onA);
    const inquiry = await device.nextInquiry();
    expect(approvalOf(await first)?.outcome).toBe('pending');
    const parkedBy = await ownerOf(a, 'max', 'late-2');
    const retry = charge(onB);
    await adopted(a, 'max', 'late-2', parkedBy);
    await device.answer(inquiry.inquiryId, 'approve');
    expect(textOf(await retry)).toBe(`charged 31 (entry ${before + 1})`);
    expect(await ledger.entries()).toHaveLength(before + 1);
    device.socket.disconnect();
  });

  it('never runs a call the person rejects late', async () => {
    const device = await connectDevice(world, 'ned');
    const agent = await a.agent('ned');
    const before = (await ledger.entries()).length;
    const charge = () =>
      agent.callTool({ name: 'charge', arguments: { amount: 32 }, _meta: { idempotencyKey: 'late-3' } });
    const first = charge();
    const inquiry = await device.nextInquiry();
    // The hold is over (the call answered pending): the rejection comes late.
    expect(approvalOf(await first)?.outcome).toBe('pending');
    await device.answer(inquiry.inquiryId, 'reject');
    const retry = await charge();
    expect(retry.isError).toBe(true);
    expect(textOf(retry)).toMatch(/^The human declined this action: "charge" on ledger was not executed/);
    const status = statusOf(
      await agent.callTool({ name: 'get_operation_status', arguments: { idempotencyKey: 'late-3' } }),
    );
    expect(status.status).toBe('done');
    expect(status.result?.isError).toBe(true);
    expect(textOf(await charge())).toContain('The human declined');
    expect(await ledger.entries()).toHaveLength(before);
    expect(device.seen).toHaveLength(1);
    device.socket.disconnect();
  });
});

describe('an approval that outlives the hold, one proxy in memory', () => {
  let world: World;
  let t: TestProxy;
  let ledger: Ledger;
  useLedgerProxies({ kind: 'memory', dir, policy: POLICY, env: SLOW_TIERS }, (started) => {
    ({
      world,
      ledger,
      proxies: [t],
    } = started);
  });

  it('gives a call without a key one, and collects it with get_operation_status', async () => {
    const device = await connectDevice(world, 'ola');
    const agent = await t.agent('ola');
    const first = agent.callTool({ name: 'charge', arguments: { amount: 40 } });
    const inquiry = await device.nextInquiry();
    const pending = await first;
    expect(pending.isError).toBeFalsy();
    const key = (pending._meta as { idempotencyKey?: string }).idempotencyKey ?? '';
    expect(key).toMatch(/^auto:/);
    expect(textOf(pending)).toContain(`this call was given the key "${key}"`);
    const waiting = await agent.callTool({
      name: 'get_operation_status',
      arguments: { idempotencyKey: key, waitMs: 500 },
    });
    expect(statusOf(waiting)).toMatchObject({ status: 'awaiting_approval', inquiryId: inquiry.inquiryId });
    expect(textOf(waiting)).toContain('nothing has run yet');
    const parkedBy = await ownerOf(t, 'ola', key);
    const collecting = agent.callTool({
      name: 'get_operation_status',
      arguments: { idempotencyKey: key, waitMs: 4000 },
    });
    await adopted(t, 'ola', key, parkedBy);
    await device.answer(inquiry.inquiryId, 'approve');
    const done = statusOf(await collecting);
    expect(done.status).toBe('done');
    expect(textOf(done.result)).toBe('charged 40 (entry 1)');
    expect(await ledger.entries()).toHaveLength(1);
    device.socket.disconnect();
  });

  it('runs nothing when the window runs out: the approval times out at its end, not at the hold', async () => {
    const device = await connectDevice(world, 'pia');
    const agent = await t.agent('pia');
    const before = (await ledger.entries()).length;
    const jot = () =>
      agent.callTool({ name: 'jot', arguments: { text: 'late' }, _meta: { idempotencyKey: 'late-4' } });
    const started = Date.now();
    const first = jot();
    const inquiry = await device.nextInquiry();
    expect(approvalOf(await first)?.outcome).toBe('pending');
    // Still open after the hold: the window is 6 s.
    const open = await agent.callTool({
      name: 'get_operation_status',
      arguments: { idempotencyKey: 'late-4' },
    });
    expect(statusOf(open).status).toBe('awaiting_approval');
    const resolved = new Promise<{ status: string; resolvedBy?: { kind: string; trigger?: string } }>(
      (resolve) => device.socket.once('inquiry:resolved', resolve),
    );
    const last = await agent.callTool({
      name: 'get_operation_status',
      arguments: { idempotencyKey: 'late-4', waitMs: 5000 },
    });
    // Approvals fail closed: the decision agent answers "reject" for the service timer, at answerBy.
    const end = await resolved;
    expect(end.status).toBe('timed_out');
    expect([end.resolvedBy?.kind, end.resolvedBy?.trigger]).toContain('service-timer');
    expect(Date.now() - started).toBeGreaterThanOrEqual(5500);
    expect(statusOf(last).status).toBe('done');
    expect(statusOf(last).result?.isError).toBe(true);
    expect(textOf(statusOf(last).result)).toMatch(
      /^No human approved in time: "jot" on ledger was not executed/,
    );
    expect(await device.answer(inquiry.inquiryId, 'approve')).toMatchObject({ ok: false });
    const retry = await jot();
    expect(retry.isError).toBe(true);
    expect(textOf(retry)).toContain('No human approved in time');
    expect(await ledger.entries()).toHaveLength(before);
    device.socket.disconnect();
  });
});
