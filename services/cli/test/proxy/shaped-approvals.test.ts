import { callDigest } from '@hitl/mcp-proxy';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  type Ledger,
  scratchDir,
  type TestDevice,
  type TestProxy,
  textOf,
  useLedgerProxies,
} from './harness.js';

/**
 * Approvals people shape, through the real proxy in front of a real stdio MCP server that records
 * what it ran (the ledger), a real node and real socket.io devices: a reason the agent reads, and an
 * edit the backend runs exactly once.
 */
const dir = scratchDir('proxy-shaped-');
let t: TestProxy;
let ledger: Ledger;
let device: TestDevice;
useLedgerProxies(
  {
    kind: 'memory',
    dir,
    policy: { mode: 'gated', tools: { charge: { editable: ['amount'] } } },
    device: 'erin',
  },
  (started) => {
    ({
      ledger,
      proxies: [t],
      device,
    } = started);
  },
);

describe('a reason', () => {
  it('reaches the agent with the reject: nothing ran', async () => {
    const agent = await t.agent('erin');
    const call = agent.callTool({ name: 'jot', arguments: { text: 'rm -rf /' } });
    const inquiry = await device.nextInquiry();
    await device.emit('inquiry:answer', {
      inquiryId: inquiry.inquiryId,
      response: 'reject',
      reason: 'jot it in the notes file',
    });
    const result = (await call) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('They said: "jot it in the notes file"');
    expect(result._meta).toMatchObject({
      approval: { outcome: 'rejected', reason: 'jot it in the notes file' },
    });
    expect(t.decisions.at(-1)).toMatchObject({ outcome: 'rejected', said: 'jot it in the notes file' });
    expect(await ledger.entries()).toEqual([]);
  });

  it('reaches the agent with a refusal', async () => {
    const agent = await t.agent('erin');
    const call = agent.callTool({ name: 'jot', arguments: { text: 'x' } });
    const inquiry = await device.nextInquiry();
    await device.emit('inquiry:refuse', { inquiryId: inquiry.inquiryId, reason: 'not now' });
    const result = (await call) as CallToolResult;
    expect(textOf(result)).toContain('They said: "not now"');
    expect(await ledger.entries()).toEqual([]);
  });
});

describe('edit before approve', () => {
  it('runs the edited call once; a non-editable or schema-breaking edit is refused and the approval stays answerable', async () => {
    const agent = await t.agent('erin');
    const asked = { amount: 500, memo: 'rent' };
    const call = agent.callTool({ name: 'charge', arguments: asked, _meta: { idempotencyKey: 'rent-1' } });
    const inquiry = await device.nextInquiry();
    expect(inquiry.editable).toEqual(['amount']);
    expect(inquiry.action?.inputSchema).toMatchObject({ properties: { amount: { type: 'number' } } });

    const answer = (args: unknown) =>
      device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'approve', arguments: args });
    expect((await answer({ amount: 'fifty' })).error?.message).toMatch(/^arguments\.amount: must be number/);
    expect((await answer({ memo: 'other' })).error?.message).toBe(
      'arguments.memo: not editable on this approval',
    );
    expect(await ledger.entries()).toEqual([]);
    expect(await answer({ amount: 50 })).toMatchObject({ ok: true });

    const result = (await call) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('with their own edits (changed: amount)');
    expect(textOf(result)).toContain('{"amount":50,"memo":"rent"}');
    expect(result._meta?.['hitl/approval']).toEqual({
      editedArguments: { amount: 50, memo: 'rent' },
      changed: ['amount'],
    });
    expect(await ledger.entries()).toEqual([{ amount: 50, memo: 'rent', pid: expect.any(Number) }]);

    // The audit keeps both digests: the call asked and the call that ran.
    const decision = t.decisions.at(-1);
    expect(decision).toMatchObject({ outcome: 'approved', changed: ['amount'] });
    const digestOf = (args: Record<string, unknown>) =>
      callDigest({ userId: 'erin', backendId: t.proxy.core.backend.id, tool: 'charge', arguments: args });
    expect(decision?.digest).toBe(digestOf(asked));
    expect(decision?.approvedDigest).toBe(digestOf({ amount: 50, memo: 'rent' }));

    // The grant is bound to the approved call: replayed for the asked digest, it runs nothing.
    const op = await t.proxy.core.store.getOperation('erin', 'rent-1');
    expect(op?.grantId).toBeDefined();
    const grantId = op?.grantId as string;
    expect(await t.proxy.core.store.consumeGrant(grantId, digestOf(asked), Date.now())).toBe('mismatch');
    expect(
      await t.proxy.core.store.consumeGrant(grantId, digestOf({ amount: 50, memo: 'rent' }), Date.now()),
    ).toBe('used');
    // The agent's retry with the same key gets the stored result: the backend does not run again.
    const again = (await agent.callTool({
      name: 'charge',
      arguments: asked,
      _meta: { idempotencyKey: 'rent-1' },
    })) as CallToolResult;
    expect(again._meta).toMatchObject({ replayed: true, 'hitl/approval': { changed: ['amount'] } });
    expect(await ledger.entries()).toHaveLength(1);
  });

  it('an approve with no edit runs the asked call and says nothing of edits', async () => {
    const agent = await t.agent('erin');
    const call = agent.callTool({ name: 'charge', arguments: { amount: 7 } });
    const inquiry = await device.nextInquiry();
    await device.emit('inquiry:answer', {
      inquiryId: inquiry.inquiryId,
      response: 'approve',
      arguments: { amount: 7 },
    });
    const result = (await call) as CallToolResult;
    expect(textOf(result)).toMatch(/^charged 7/);
    expect(result._meta?.['hitl/approval']).toBeUndefined();
    expect((await ledger.entries()).at(-1)).toMatchObject({ amount: 7 });
  });

  it('a tool the policy does not make editable takes no edit', async () => {
    const agent = await t.agent('erin');
    const call = agent.callTool({ name: 'jot', arguments: { text: 'a' } });
    const inquiry = await device.nextInquiry();
    expect(inquiry.editable).toBeUndefined();
    const ack = await device.emit('inquiry:answer', {
      inquiryId: inquiry.inquiryId,
      response: 'approve',
      arguments: { text: 'b' },
    });
    expect(ack.error?.message).toContain('does not let you edit');
    await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'approve' });
    expect(textOf(await call)).toBe('jotted: a');
  });
});
