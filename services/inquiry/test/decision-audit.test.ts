import type { DecisionRecord, DecisionSummary, Inquiry, Page } from '@hitl/protocol';
import { eventually, sleep } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, deviceTimesOut, newUser, refuse, SHORT_TIERS, serviceTimesOut } from './decision-helpers.js';
import { body, STORE_KINDS, startTestNode, type TestNode } from './harness.js';

describe.each(STORE_KINDS)('the decision audit log (%s store)', (kind) => {
  let t: TestNode;
  let ops: string;
  const alice = newUser();
  const bob = newUser();
  let started: number;
  let secondBatch: number;
  beforeAll(async () => {
    t = await startTestNode(kind, SHORT_TIERS);
    ops = await t.token('ops-1', 'ops');
    started = Date.now();
    // Alice: a human answer, then a preset refusal.
    const answered = await ask(
      t,
      { question: 'Which size?', options: ['S', 'M'], context: 'cart: shoes' },
      alice,
    );
    await answered.device.emit('inquiry:answer', { inquiryId: answered.pushed.inquiryId, response: 'M' });
    await answered.result;
    await refuse(t, { question: 'Gift wrap?' });
    // The first batch resolved at or before now (possibly within this millisecond): the second
    // batch starts a millisecond later, so a `since` between them splits them exactly.
    secondBatch = Date.now() + 1;
    // time itself is under test: the clock must pass `secondBatch` before the second batch starts.
    await sleep(2);
    // Bob and others: a decision, a device timeout, a service timeout (fail closed), a cancel.
    const bobRefuses = ask(
      t,
      { question: 'Colour?', defaultAnswer: 'blue', fallback: { onRefusal: 'default_answer' } },
      bob,
    );
    await Promise.all([
      bobRefuses.then(async (a) => {
        await a.device.emit('inquiry:refuse', { inquiryId: a.pushed.inquiryId });
        await a.result;
      }),
      deviceTimesOut(t, { question: 'Still there?' }),
      serviceTimesOut(t, {
        question: 'Delete it?',
        kind: 'approval',
        action: { server: 's', tool: 'rm', arguments: {} },
      }),
      cancelOne(t),
    ]);
    await eventually(async () => (await list('limit=50')).items.length === 6, 5000);
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (path: string, token = ops) => t.rest(path, { token });
  const list = async (query: string) => body<Page<DecisionRecord>>(await get(`/api/decisions?${query}`));

  it('records every outcome, newest first, with who decided', async () => {
    const { items } = await list('limit=50');
    const byTrigger = Object.fromEntries(items.map((r) => [r.trigger, r]));
    expect(Object.keys(byTrigger).sort()).toEqual([
      'cancel',
      'device-timer',
      'human',
      'refusal',
      'service-timer',
    ]);
    expect(byTrigger.human).toMatchObject({
      userId: alice,
      outcome: 'answered',
      decidedBy: 'human',
      output: 'M',
      question: 'Which size?',
      context: 'cart: shoes',
    });
    // The person is the decider: the latency is the time they took, not 0.
    expect(byTrigger.human?.latencyMs).toBe(byTrigger.human?.elapsedMs);
    expect(byTrigger['service-timer']).toMatchObject({
      outcome: 'timed_out',
      decidedBy: 'decision-agent',
      strategy: 'fail_closed',
      kind: 'approval',
      output: 'reject',
      rationale: expect.stringMatching(/nothing was approved/),
    });
    expect(byTrigger['device-timer']).toMatchObject({ decidedBy: 'device-timer', strategy: 'preset_text' });
    expect(byTrigger.cancel).toMatchObject({ outcome: 'cancelled', decidedBy: 'agent' });
    const ats = items.map((r) => r.at);
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);
  });

  it('filters by strategy, outcome, user and time', async () => {
    const decided = await list('strategy=default_answer');
    expect(decided.items).toHaveLength(1);
    expect(decided.items[0]).toMatchObject({
      userId: bob,
      outcome: 'refused',
      trigger: 'refusal',
      decidedBy: 'decision-agent',
      output: 'blue',
    });
    expect((await list('outcome=refused')).items.map((r) => r.strategy).sort()).toEqual([
      'default_answer',
      'preset_text',
    ]);
    expect((await list(`user=${alice}`)).items.map((r) => r.outcome)).toEqual(['answered']);
    expect((await list(`user=${bob}&outcome=answered`)).items).toEqual([]);
    const recent = await list(`since=${secondBatch}`);
    expect(recent.items).toHaveLength(4);
    expect(recent.items.every((r) => r.at >= secondBatch)).toBe(true);
    const iso = await list(`since=${new Date(secondBatch).toISOString()}`);
    expect(iso.items.map((r) => r.id)).toEqual(recent.items.map((r) => r.id));
  });

  it('pages with limit and cursor', async () => {
    const all = (await list('limit=50')).items.map((r) => r.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<DecisionRecord> = await list(`limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.items.length).toBeLessThanOrEqual(4);
      seen.push(...page.items.map((r) => r.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it('returns one record with its inquiry', async () => {
    const [record] = (await list('strategy=fail_closed')).items;
    const response = await get(`/api/decisions/${record?.id}`);
    expect(response.status).toBe(200);
    const detail = await body<DecisionRecord & { inquiry: Inquiry }>(response);
    expect(detail).toMatchObject({
      ...record,
      inquiry: { inquiryId: record?.inquiryId, status: 'timed_out', kind: 'approval' },
    });
    expect((await get('/api/decisions/1-0')).status).toBe(404);
  });

  it('summarises outcomes over time, strategies and human answer times', async () => {
    const since = started - 1000;
    const response = await get(`/api/decisions/summary?since=${since}&bucketMs=60000`);
    expect(response.status).toBe(200);
    const summary = await body<DecisionSummary>(response);
    const totals = summary.buckets.reduce(
      (sum, b) => ({
        human: sum.human + b.human,
        refused: sum.refused + b.refused,
        deviceTimeout: sum.deviceTimeout + b.deviceTimeout,
        decisionAgent: sum.decisionAgent + b.decisionAgent,
        cancelled: sum.cancelled + b.cancelled,
      }),
      { human: 0, refused: 0, deviceTimeout: 0, decisionAgent: 0, cancelled: 0 },
    );
    expect(totals).toEqual({ human: 1, refused: 1, deviceTimeout: 1, decisionAgent: 2, cancelled: 1 });
    expect(summary.byStrategy).toEqual({ preset_text: 2, default_answer: 1, fail_closed: 1 });
    expect(summary.answerMs.count).toBe(1);
    expect(summary.answerMs.p50).toBeGreaterThanOrEqual(0);
    expect(summary.answerMs.p50).toBe(summary.answerMs.p99);
  });

  it('is for ops only, and names bad query fields', async () => {
    expect((await t.rest('/api/decisions')).status).toBe(401);
    expect((await get('/api/decisions', await t.token(alice, 'device'))).status).toBe(403);
    expect((await get('/api/decisions/summary', await t.token(alice, 'agent'))).status).toBe(403);
    const bad = await get('/api/decisions?strategy=yolo');
    expect(bad.status).toBe(400);
    expect((await body<{ error: { message: string } }>(bad)).error.message).toMatch(/^strategy:/);
    expect((await get('/api/decisions?cursor=abc')).status).toBe(400);
    const buckets = await get(`/api/decisions/summary?since=0&bucketMs=1000`);
    expect(buckets.status).toBe(400);
    expect((await body<{ error: { message: string } }>(buckets)).error.message).toMatch(/^bucketMs:/);
  });
});

/** An agent asks, then cancels its own call (notifications/cancelled). */
async function cancelOne(t: TestNode): Promise<void> {
  const user = newUser();
  const device = await t.device(user);
  await device.synced;
  const client = await t.mcp(user);
  const abort = new AbortController();
  const call = client.callTool({ name: 'send_inquiry', arguments: { question: 'Cancel me' } }, undefined, {
    signal: abort.signal,
  });
  await device.nextNew();
  abort.abort('changed my mind');
  await call.catch(() => undefined);
  await device.nextResolved();
}
