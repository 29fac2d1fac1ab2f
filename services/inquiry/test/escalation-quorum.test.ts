import type { DecisionRecord, DeviceInquiry, InquiryResult } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, startTeamCluster, type TeamCluster, type TestNode } from './harness.js';

/**
 * Escalation and quorum approvals on two real nodes sharing one redis-server, with real
 * socket.io devices and the official MCP client.
 */
const DIRECTORY = {
  users: { ann: { name: 'Ann' }, bob: { name: 'Bob' }, cid: { name: 'Cid' }, dan: { name: 'Dan' } },
  teams: {
    ops: { members: ['ann'], askers: ['robot'], escalateTo: { team: 'leads' }, escalateAfterMs: 1500 },
    leads: { members: ['dan'] },
    owners: { members: ['ann', 'bob', 'cid'], askers: ['robot'] },
  },
};

type Ack = { ok: boolean; status?: string; votes?: unknown[]; error?: { code: string } };

let team: TeamCluster;
let a: TestNode;
let b: TestNode;

beforeAll(async () => {
  team = await startTeamCluster(DIRECTORY, { HITL_HEARTBEAT_MS: '300' });
  ({ a, b } = team);
}, 60_000);

afterAll(async () => {
  await team?.close();
});

function askApproval(node: TestNode, args: Record<string, unknown>, timeout = 30_000) {
  return node.mcp('robot').then((agent) =>
    agent.callTool(
      {
        name: 'send_inquiry',
        arguments: {
          question: 'Drop the orders table?',
          kind: 'approval',
          action: { server: 'db', tool: 'drop_table', arguments: { table: 'orders' } },
          ...args,
        },
      },
      undefined,
      { timeout },
    ),
  );
}

describe('escalation', () => {
  it('fires at its time: the second team’s device gets the question and answers; the agent heard of it', async () => {
    const ann = await a.device('ann', 'ann laptop');
    const dan = await b.device('dan', 'dan phone');
    await Promise.all([ann.synced, dan.synced]);
    const agent = await a.mcp('robot');
    const messages: string[] = [];
    const askedAt = Date.now();
    const call = agent.callTool(
      {
        name: 'send_inquiry',
        arguments: { question: 'The disk is full: page someone?', audience: { team: 'ops' } },
      },
      undefined,
      { timeout: 30_000, onprogress: (progress) => messages.push(progress.message ?? '') },
    );
    const shown = await ann.nextNew();
    // time itself is under test: Dan is not asked before the escalation (1.5 s).
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(dan.received.filter((r) => r.event === 'inquiry:new')).toHaveLength(0);

    const escalated = await dan.nextNew();
    expect(Date.now() - askedAt).toBeGreaterThanOrEqual(1400);
    expect(escalated).toMatchObject({
      inquiryId: shown.inquiryId,
      escalation: { users: ['dan'], team: 'leads' },
    });
    expect((await ann.nextUpdated()).escalation?.escalatedAt).toBeGreaterThan(0);
    // The held call's heartbeat says so.
    await expect
      .poll(() => messages.some((m) => m.includes('escalated to team leads')), { timeout: 5000 })
      .toBe(true);

    expect(
      await dan.emit<Ack>('inquiry:answer', { inquiryId: shown.inquiryId, response: 'paging the DBA' }),
    ).toEqual({
      ok: true,
      status: 'answered',
    });
    const result = (await call).structuredContent as InquiryResult;
    expect(result).toMatchObject({
      status: 'answered',
      answer: 'paging the DBA',
      resolvedBy: { userId: 'dan' },
    });

    // Dan's history lists it; the audit log records the escalation.
    const danToken = await a.token('dan', 'device');
    const history = await body<{ items: { inquiryId: string }[] }>(
      await a.rest('/api/inquiries?status=all', { token: danToken }),
    );
    expect(history.items.map((i) => i.inquiryId)).toContain(shown.inquiryId);
    const opsToken = await a.token('ops', 'ops');
    await eventually(async () => {
      const log = await body<{ items: DecisionRecord[] }>(
        await b.rest('/api/decisions?limit=50', { token: opsToken }),
      );
      expect(log.items.find((r) => r.inquiryId === shown.inquiryId)?.escalation?.users).toEqual(['dan']);
    });
  });

  it('does not escalate a question answered in time', async () => {
    const ann = await a.device('ann', 'ann desk');
    const dan = await b.device('dan', 'dan desk');
    await Promise.all([ann.synced, dan.synced]);
    const agent = await b.mcp('robot');
    const call = agent.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Quick one?', audience: { team: 'ops' } },
    });
    const shown = await ann.nextNew();
    await ann.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'yes' });
    expect((await call).structuredContent).toMatchObject({
      status: 'answered',
      resolvedBy: { userId: 'ann' },
    });
    // time itself is under test: past the 1.5 s escalation, Dan is still not asked.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(dan.received.filter((r) => r.event === 'inquiry:new')).toHaveLength(0);
  });
});

describe('quorum approvals', () => {
  it('2 of 3: two approvals racing on two nodes approve once, with both votes returned', async () => {
    const ann = await a.device('ann', 'ann laptop');
    const bob = await b.device('bob', 'bob phone');
    const cid = await b.device('cid', 'cid tablet');
    await Promise.all([ann.synced, bob.synced, cid.synced]);
    const call = askApproval(a, { audience: { team: 'owners' }, quorum: 2 });
    const [shown] = (await Promise.all([ann.nextNew(), bob.nextNew(), cid.nextNew()])) as DeviceInquiry[];
    expect(shown).toMatchObject({ quorum: 2, votes: [], critical: true });
    const { inquiryId } = shown as DeviceInquiry;

    const first = await ann.emit<Ack>('inquiry:answer', { inquiryId, response: 'approve' });
    expect(first).toMatchObject({ ok: true, status: 'pending', votes: [{ userId: 'ann', vote: 'approve' }] });
    const update = await cid.nextUpdated();
    expect(update.votes).toHaveLength(1);
    // A second vote from the same person is refused, on a socket and over REST.
    expect(await ann.emit<Ack>('inquiry:answer', { inquiryId, response: 'reject' })).toMatchObject({
      ok: false,
      error: { code: 'already_voted' },
    });
    const again = await b.rest(`/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      token: await b.token('ann', 'device'),
      body: JSON.stringify({ response: 'approve' }),
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'already_voted' } });

    const racing = await Promise.all([
      bob.emit<Ack>('inquiry:answer', { inquiryId, response: 'approve' }),
      cid.emit<Ack>('inquiry:answer', { inquiryId, response: 'approve' }),
    ]);
    expect(racing.filter((ack) => ack.ok && ack.status === 'answered')).toHaveLength(1);
    expect(racing.filter((ack) => !ack.ok && ack.error?.code === 'already_resolved')).toHaveLength(1);
    const called = await call;
    const result = called.structuredContent as InquiryResult;
    expect(result).toMatchObject({ status: 'answered', answer: 'approve' });
    expect(result.votes?.map((v) => v.userId)).toHaveLength(2);
    // The text names the approvers and their votes, not "the person".
    const [firstVote, secondVote] = result.votes ?? [];
    expect((called.content as { text: string }[])[0]?.text).toBe(
      `The approvers answered: approve (votes: ${firstVote?.userId} approved, ${secondVote?.userId} approved)`,
    );
    expect(result.votes?.[0]).toMatchObject({ userId: 'ann', deviceName: 'ann laptop', vote: 'approve' });
    expect((await ann.nextResolved()).resolvedBy.userId).toMatch(/bob|cid/);
  });

  it('one reject after one approval vetoes', async () => {
    const ann = await a.device('ann', 'ann laptop 2');
    const bob = await b.device('bob', 'bob phone 2');
    await Promise.all([ann.synced, bob.synced]);
    const call = askApproval(b, { audience: { team: 'owners' }, quorum: 2 });
    const { inquiryId } = await ann.nextNew();
    await bob.nextNew();
    await ann.emit('inquiry:answer', { inquiryId, response: 'approve' });
    expect(await bob.emit<Ack>('inquiry:answer', { inquiryId, response: 'reject' })).toEqual({
      ok: true,
      status: 'answered',
    });
    const called = await call;
    const result = called.structuredContent as InquiryResult;
    expect(result).toMatchObject({ status: 'answered', answer: 'reject', resolvedBy: { userId: 'bob' } });
    expect(result.votes?.map((v) => v.vote)).toEqual(['approve', 'reject']);
    expect((called.content as { text: string }[])[0]?.text).toBe(
      'The approvers answered: reject (votes: ann approved, bob rejected)',
    );
  });

  it('a partial quorum that times out is not an approval, even with an approve fallback', async () => {
    const ann = await a.device('ann', 'ann laptop 3');
    await ann.synced;
    const call = askApproval(a, {
      audience: { team: 'owners' },
      quorum: 2,
      timeoutMs: 2000,
      confidence: 0.99,
      fallback: { onTimeout: 'approve' },
    });
    const { inquiryId } = await ann.nextNew();
    await ann.emit('inquiry:answer', { inquiryId, response: 'approve' });
    const result = (await call).structuredContent as InquiryResult;
    expect(result.status).toBe('timed_out');
    expect(result.answer).not.toBe('approve');
    expect(result.votes).toHaveLength(1);
  });

  it('refuses a quorum larger than the audience, or on a question, naming quorum', async () => {
    const agent = await a.mcp('robot');
    const tooBig = await agent
      .callTool({
        name: 'send_inquiry',
        arguments: { question: 'Ship?', kind: 'approval', audience: { users: ['ann', 'bob'] }, quorum: 3 },
      })
      .then(
        (r) => JSON.stringify(r),
        (e: Error) => e.message,
      );
    expect(tooBig).toMatch(/quorum/);
    const onQuestion = await agent
      .callTool({
        name: 'send_inquiry',
        arguments: { question: 'Size?', audience: { team: 'owners' }, quorum: 2 },
      })
      .then(
        (r) => JSON.stringify(r),
        (e: Error) => e.message,
      );
    expect(onQuestion).toMatch(/quorum/);
  });
});
