import {
  type AuditRecordsPage,
  type ChainEntry,
  type SignedCheckpoint,
  SignedCheckpointSchema,
} from '@hitl/protocol';
import { checkpointSignatureHolds, verifyChain } from '@hitl/store';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, newUser } from './decision-helpers.js';
import { body, STORE_KINDS, startTestNode, type TestNode } from './harness.js';

async function checkpointOf(t: TestNode, ops: string): Promise<SignedCheckpoint> {
  const response = await t.rest('/api/audit/checkpoint', { token: ops });
  expect(response.status).toBe(200);
  return SignedCheckpointSchema.parse(await response.json());
}

async function entriesOf(t: TestNode, ops: string): Promise<ChainEntry[]> {
  const entries: ChainEntry[] = [];
  let after = 0;
  for (;;) {
    const page = await body<AuditRecordsPage>(
      await t.rest(`/api/audit/records?after=${after}&limit=7`, { token: ops }),
    );
    entries.push(...page.items);
    if (page.nextCursor === null) return entries;
    after = Number(page.nextCursor);
  }
}

describe.each(STORE_KINDS)('the audit chain on %s', (kind) => {
  let t: TestNode;
  let ops: string;
  beforeAll(async () => {
    t = await startTestNode(kind);
    ops = await t.token('auditor', 'ops');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('ops read a signed checkpoint and the records; every other role gets 403, no token 401', async () => {
    const user = newUser();
    for (const role of ['device', 'agent'] as const) {
      const token = await t.token(user, role);
      expect((await t.rest('/api/audit/checkpoint', { token })).status).toBe(403);
      expect((await t.rest('/api/audit/records', { token })).status).toBe(403);
    }
    expect((await t.rest('/api/audit/checkpoint')).status).toBe(401);
    expect((await t.rest('/api/audit/records?after=-1', { token: ops })).status).toBe(400);
    const signed = await checkpointOf(t, ops);
    expect(checkpointSignatureHolds(signed)).toBe(true);
    expect(Number.isInteger(signed.checkpoint.at)).toBe(true);
    expect(Buffer.from(signed.publicKey, 'base64url')).toHaveLength(32);
  });

  it('an answer, a refusal and an ops cancel each enter the chain once, before the answer is acknowledged', async () => {
    const before = (await checkpointOf(t, ops)).checkpoint.seq;
    const answered = await ask(t, {
      question: 'Ship it?',
      kind: 'approval',
      action: { server: 's', tool: 'deploy', arguments: { env: 'prod' } },
    });
    const ack = await answered.device.emit('inquiry:answer', {
      inquiryId: answered.pushed.inquiryId,
      response: 'approve',
    });
    expect(ack).toMatchObject({ ok: true });
    // Acknowledged means recorded: the head already holds it.
    const head = await checkpointOf(t, ops);
    expect(head.checkpoint.seq).toBe(before + 1);
    const refused = await ask(t, { question: 'Size?' });
    await refused.device.emit('inquiry:refuse', { inquiryId: refused.pushed.inquiryId });
    const cancelled = await ask(t, { question: 'Colour?' });
    expect(
      (await t.rest(`/api/inquiries/${cancelled.pushed.inquiryId}/cancel`, { method: 'POST', token: ops }))
        .status,
    ).toBe(200);
    await Promise.all([answered.result, refused.result, cancelled.result]);

    const entries = await entriesOf(t, ops);
    const signed = await checkpointOf(t, ops);
    expect(verifyChain(entries, signed.checkpoint)).toEqual({ ok: true, count: before + 3 });
    const mine = entries.slice(before).map((e) => e.record);
    expect(mine).toMatchObject([
      {
        id: `inquiry:${answered.pushed.inquiryId}:end`,
        type: 'answer',
        kind: 'approval',
        answer: 'approve',
        by: { kind: 'human', deviceName: 'phone' },
        action: { server: 's', tool: 'deploy', argumentsDigest: expect.stringMatching(/^[0-9a-f]{64}$/) },
      },
      { id: `inquiry:${refused.pushed.inquiryId}:end`, type: 'refusal', status: 'refused' },
      { id: `inquiry:${cancelled.pushed.inquiryId}:end`, type: 'cancel', ops: { subject: 'auditor' } },
    ]);
  });
});

describe('the audit chain on two nodes sharing one Redis', () => {
  let redis: TestRedisServer;
  let a: TestNode;
  let b: TestNode;
  beforeAll(async () => {
    redis = await startRedisServer();
    a = await startTestNode('memory', { REDIS_URL: redis.url });
    b = await startTestNode('memory', { REDIS_URL: redis.url });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await redis?.stop();
  });

  it('answers racing on both nodes append to one chain with no gap, each record once', async () => {
    const ops = await a.token('auditor', 'ops');
    const users = Array.from({ length: 24 }, () => newUser());
    const asked = await Promise.all(users.map((user, i) => ask(i % 2 ? a : b, { question: `Q${i}?` }, user)));
    // Each answer goes to the other node than the one holding the call, all at once.
    await Promise.all(
      asked.map(async ({ pushed }, i) => {
        const node = i % 2 ? b : a;
        const response = await node.rest(`/api/inquiries/${pushed.inquiryId}/answer`, {
          method: 'POST',
          token: await node.token(users[i] as string, 'device'),
          body: JSON.stringify({ response: `A${i}` }),
          headers: { 'content-type': 'application/json' },
        });
        expect(response.status).toBe(200);
      }),
    );
    await Promise.all(asked.map((x) => x.result));
    const entries = await entriesOf(b, ops);
    expect(entries.map((e) => e.seq)).toEqual(entries.map((_, i) => i + 1));
    expect(verifyChain(entries, (await checkpointOf(a, ops)).checkpoint)).toEqual({ ok: true, count: 24 });
    expect(new Set(entries.map((e) => e.record.inquiryId))).toEqual(
      new Set(asked.map((x) => x.pushed.inquiryId)),
    );
    // Both nodes sign with the one deployment key.
    expect((await checkpointOf(b, ops)).publicKey).toBe((await checkpointOf(a, ops)).publicKey);
  });
});
