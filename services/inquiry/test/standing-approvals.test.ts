import type { DeviceInquiry, StandingApprovalView } from '@hitl/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, type NodePair, startNodePair, type TestDevice, type TestNode } from './harness.js';

/**
 * "Approve, and allow the same for N minutes": the node makes the standing approval from the
 * winning approve, the proxy's question (`POST /api/approvals/standing/use`) is answered by any node
 * on the shared store, and an end on one node stops it on the other at once. Two real nodes on one
 * redis-server, real socket.io devices, the official MCP client.
 */
type Ack = { ok: boolean; error?: { code: string; message: string } };

let pair: NodePair;
let a: TestNode;
let b: TestNode;
let phone: TestDevice;
let tokens: { agent: string; device: string; otherAgent: string; otherDevice: string; ops: string };

beforeAll(async () => {
  pair = await startNodePair('memory');
  ({ a, b } = pair);
  phone = await a.device('ann', 'phone');
  await phone.synced;
  tokens = {
    agent: await a.token('ann', 'agent'),
    device: await a.token('ann', 'device'),
    otherAgent: await a.token('bob', 'agent'),
    otherDevice: await a.token('bob', 'device'),
    ops: await a.token('root', 'ops'),
  };
}, 60_000);

afterAll(async () => {
  await pair?.close();
});

const approval = (extra: Record<string, unknown> = {}) => ({
  question: 'Delete the cache?',
  kind: 'approval',
  action: { server: 'files', tool: 'delete', arguments: { path: '/srv/cache/tmp', recursive: true } },
  ...extra,
});

async function ask(args: Record<string, unknown>): Promise<{ shown: DeviceInquiry; call: Promise<unknown> }> {
  const agent = await a.mcp('ann');
  const call = agent.callTool({ name: 'send_inquiry', arguments: args }, undefined, { timeout: 30_000 });
  return { shown: await phone.nextNew(), call };
}

function use(node: TestNode, token: string, args: Record<string, unknown>, tool = 'delete') {
  return node.rest('/api/approvals/standing/use', {
    method: 'POST',
    token,
    body: JSON.stringify({ server: 'files', tool, arguments: args }),
  });
}

async function listed(node: TestNode, token: string): Promise<StandingApprovalView[]> {
  const response = await node.rest('/api/approvals/standing', { token });
  expect(response.status).toBe(200);
  return (await body<{ items: StandingApprovalView[] }>(response)).items;
}

describe('standing approvals', () => {
  let id: string;

  it('an approve with allowFor makes one, for the asker, server and tool, with its match', async () => {
    const { shown, call } = await ask(approval());
    const ack = await phone.emit<Ack>('inquiry:answer', {
      inquiryId: shown.inquiryId,
      response: 'approve',
      allowFor: { minutes: 15, match: { path: '/srv/cache/tmp' } },
    });
    expect(ack).toMatchObject({ ok: true });
    await call;
    const items = await listed(b, tokens.device);
    expect(items).toHaveLength(1);
    const made = items[0] as StandingApprovalView;
    expect(made).toMatchObject({
      userId: 'ann',
      server: 'files',
      tool: 'delete',
      match: { path: '/srv/cache/tmp' },
      createdBy: 'ann',
      inquiryId: shown.inquiryId,
      uses: 0,
    });
    expect(made.until - Date.now()).toBeGreaterThan(14 * 60_000);
    id = made.id;
  });

  it('covers a later call with exactly the matched values, on any node, and counts each use', async () => {
    const first = await use(b, tokens.agent, { path: '/srv/cache/tmp', recursive: false });
    expect(first.status).toBe(200);
    expect(await body(first)).toMatchObject({ id, uses: 1 });
    expect(await body(await use(a, tokens.agent, { path: '/srv/cache/tmp' }))).toMatchObject({ uses: 2 });
    expect((await use(a, tokens.agent, { path: '/srv/cache' })).status).toBe(404);
    expect((await use(a, tokens.agent, { path: '/srv/cache/tmp/' })).status).toBe(404);
    expect((await use(a, tokens.agent, { path: '/srv/cache/tmp' }, 'move')).status).toBe(404);
    // Another asker's agent is not covered; a device may not ask.
    expect((await use(a, tokens.otherAgent, { path: '/srv/cache/tmp' })).status).toBe(404);
    expect((await use(a, tokens.device, { path: '/srv/cache/tmp' })).status).toBe(403);
    expect((await listed(a, tokens.device))[0]?.uses).toBe(2);
  });

  it('is listed for its people and ops, not for others; only they may end it', async () => {
    expect(await listed(a, tokens.otherDevice)).toEqual([]);
    expect((await listed(a, tokens.ops)).map((s) => s.id)).toEqual([id]);
    const other = await b.rest(`/api/approvals/standing/${id}`, {
      method: 'DELETE',
      token: tokens.otherDevice,
    });
    expect(other.status).toBe(404);
    expect((await use(a, tokens.agent, { path: '/srv/cache/tmp' })).status).toBe(200);
  });

  it('ends at once on every node', async () => {
    const ended = await b.rest(`/api/approvals/standing/${id}`, { method: 'DELETE', token: tokens.device });
    expect(ended.status).toBe(200);
    expect(await body(ended)).toMatchObject({ ended: { id, uses: 3 } });
    expect((await use(a, tokens.agent, { path: '/srv/cache/tmp' })).status).toBe(404);
    expect((await use(b, tokens.agent, { path: '/srv/cache/tmp' })).status).toBe(404);
    expect(await listed(a, tokens.device)).toEqual([]);
    const again = await a.rest(`/api/approvals/standing/${id}`, { method: 'DELETE', token: tokens.device });
    expect(again.status).toBe(404);
  });

  it('is refused, with the reason, for a critical action and where the asker said standing: false; nothing is made', async () => {
    for (const extra of [{ critical: true }, { standing: false }]) {
      const { shown, call } = await ask(approval(extra));
      const ack = await phone.emit<Ack>('inquiry:answer', {
        inquiryId: shown.inquiryId,
        response: 'approve',
        allowFor: { minutes: 5 },
      });
      expect(ack).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      expect(ack.error?.message).toMatch(
        extra.critical ? /allowFor: a critical action is never allowed for a while/ : /allowFor: the policy/,
      );
      await phone.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'reject' });
      await call;
    }
    expect(await listed(a, tokens.device)).toEqual([]);
  });

  it('refuses a match that is not what the approval approves, and a reject with allowFor', async () => {
    const { shown, call } = await ask(approval());
    const send = (extra: Record<string, unknown>) =>
      phone.emit<Ack>('inquiry:answer', { inquiryId: shown.inquiryId, ...extra });
    const wrong = await send({ response: 'approve', allowFor: { minutes: 5, match: { path: '/' } } });
    expect(wrong.error?.message).toBe('allowFor.match.path: must be the value this approval approves');
    const reject = await send({ response: 'reject', allowFor: { minutes: 5 } });
    expect(reject.error?.message).toMatch(/^allowFor: only an approval of an action, answered "approve"/);
    await send({ response: 'reject' });
    await call;
    expect(await listed(a, tokens.device)).toEqual([]);
  });

  it('refuses a use body that is not a call', async () => {
    for (const bad of [{ server: 'files' }, { server: 'files', tool: 'delete', arguments: [] }, 'x']) {
      const response = await a.rest('/api/approvals/standing/use', {
        method: 'POST',
        token: tokens.agent,
        body: JSON.stringify(bad),
      });
      expect(response.status).toBe(400);
    }
  });
});
