import type { StandingApprovalView } from '@hitl/protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  type Ledger,
  scratchDir,
  type TestDevice,
  type TestProxy,
  textOf,
  useLedgerProxies,
  type World,
} from './harness.js';

/**
 * "Approve, and allow the same for a while", through the real proxy in front of the ledger (a real
 * stdio MCP server that records what it ran), a real node and real socket.io devices; then two
 * proxy nodes on one Redis that see the same standing approvals and the same end.
 */
const POLICY = { mode: 'gated', critical: ['settle'] };

const dir = scratchDir('proxy-standing-');

async function rest(world: World, path: string, user: string, init: RequestInit = {}): Promise<Response> {
  const token = await world.node.tokens.sign({ sub: user, role: 'device', name: 'phone' });
  return fetch(`${world.node.url}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
}

async function standing(world: World, user: string): Promise<StandingApprovalView[]> {
  const response = await rest(world, '/api/approvals/standing', user);
  return ((await response.json()) as { items: StandingApprovalView[] }).items;
}

/** Approves the next approval on `device` with `allowFor`. */
async function approveFor(device: TestDevice, allowFor: unknown): Promise<void> {
  const inquiry = await device.nextInquiry();
  expect(
    await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'approve', allowFor }),
  ).toMatchObject({
    ok: true,
  });
}

describe('one proxy', () => {
  let world: World;
  let t: TestProxy;
  let ledger: Ledger;
  let device: TestDevice;
  useLedgerProxies({ kind: 'memory', dir, policy: POLICY, device: 'gus' }, (started) => {
    ({
      world,
      ledger,
      proxies: [t],
      device,
    } = started);
  });

  it('is used for a matching call without asking, counted, audited with its id, and ended at once', async () => {
    const agent = await t.agent('gus');
    const first = agent.callTool({ name: 'jot', arguments: { text: 'hello' } });
    await approveFor(device, { minutes: 15, match: { text: 'hello' } });
    expect(textOf(await first)).toBe('jotted: hello');
    const [made] = await standing(world, 'gus');
    expect(made).toMatchObject({
      userId: 'gus',
      server: 'ledger',
      tool: 'jot',
      match: { text: 'hello' },
      uses: 0,
    });

    const asked = device.seen.length;
    expect(textOf(await agent.callTool({ name: 'jot', arguments: { text: 'hello' } }))).toBe('jotted: hello');
    expect(textOf(await agent.callTool({ name: 'jot', arguments: { text: 'hello' } }))).toBe('jotted: hello');
    expect(device.seen.length).toBe(asked);
    expect((await standing(world, 'gus'))[0]?.uses).toBe(2);
    expect(t.decisions.at(-1)).toMatchObject({ outcome: 'standing', standingId: made?.id, tool: 'jot' });

    // Matched exactly: another text is asked.
    const other = agent.callTool({ name: 'jot', arguments: { text: 'hello!' } });
    const inquiry = await device.nextInquiry();
    expect(inquiry.action?.arguments).toEqual({ text: 'hello!' });
    await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'reject' });
    expect((await other).isError).toBe(true);

    const ended = await rest(world, `/api/approvals/standing/${made?.id}`, 'gus', { method: 'DELETE' });
    expect(ended.status).toBe(200);
    const afterEnd = agent.callTool({ name: 'jot', arguments: { text: 'hello' } });
    const askedAgain = await device.nextInquiry();
    await device.emit('inquiry:answer', { inquiryId: askedAgain.inquiryId, response: 'reject' });
    expect((await afterEnd).isError).toBe(true);
    expect((await ledger.entries()).filter((e) => (e as { jot?: string }).jot === 'hello')).toHaveLength(3);
  });

  it('is refused, with the reason, for a critical tool: every call is asked', async () => {
    const agent = await t.agent('gus');
    const call = agent.callTool({ name: 'settle', arguments: { amount: 1, delayMs: 0 } });
    const inquiry = await device.nextInquiry();
    expect(inquiry).toMatchObject({ critical: true, standing: false });
    const refused = await device.emit('inquiry:answer', {
      inquiryId: inquiry.inquiryId,
      response: 'approve',
      allowFor: { minutes: 15 },
    });
    expect(refused.error?.message).toMatch(/^allowFor: a critical action is never allowed for a while/);
    await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'approve' });
    expect(textOf((await call) as CallToolResult)).toBe('settled 1');
    expect(await standing(world, 'gus')).toEqual([]);
  });
});

describe('two proxy nodes on one Redis', () => {
  let world: World;
  let one: TestProxy;
  let two: TestProxy;
  let ledger: Ledger;
  let device: TestDevice;
  useLedgerProxies({ kind: 'redis', dir, policy: POLICY, count: 2, device: 'hal' }, (started) => {
    ({
      world,
      ledger,
      proxies: [one, two],
      device,
    } = started);
  });

  it('see the same standing approval and the same end', async () => {
    const first = (await one.agent('hal')).callTool({ name: 'jot', arguments: { text: 'shared' } });
    await approveFor(device, { minutes: 5 });
    await first;
    const asked = device.seen.length;
    const viaTwo = await two.agent('hal');
    expect(textOf(await viaTwo.callTool({ name: 'jot', arguments: { text: 'anything' } }))).toBe(
      'jotted: anything',
    );
    expect(device.seen.length).toBe(asked);
    const [made] = await standing(world, 'hal');
    expect(made?.uses).toBe(1);
    expect(two.decisions.at(-1)).toMatchObject({ outcome: 'standing', standingId: made?.id });

    expect(
      (await rest(world, `/api/approvals/standing/${made?.id}`, 'hal', { method: 'DELETE' })).status,
    ).toBe(200);
    const viaOne = (await one.agent('hal')).callTool({ name: 'jot', arguments: { text: 'after' } });
    const inquiry = await device.nextInquiry();
    await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'reject' });
    expect((await viaOne).isError).toBe(true);
    expect(await ledger.entries()).toHaveLength(2);
  });
});
