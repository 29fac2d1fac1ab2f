import type { DecisionRecord, InquiryResolvedEvent, Page } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ask, newUser } from './decision-helpers.js';
import { body, startTestNode, type TestNode } from './harness.js';

describe('ops cancel: POST /api/inquiries/:id/cancel', () => {
  let t: TestNode;
  let ops: string;
  beforeAll(async () => {
    t = await startTestNode('redis');
    ops = await t.token('ops-alice', 'ops', 'Alice on call');
  });
  afterAll(async () => {
    await t?.close();
  });

  const cancel = (id: string, token: string) =>
    t.rest(`/api/inquiries/${id}/cancel`, { method: 'POST', token });

  it('an ops socket hears every user’s new and resolved inquiries, and cannot answer', async () => {
    const watcher: Socket = io(t.url, {
      auth: { token: ops },
      transports: ['websocket'],
      reconnection: false,
    });
    const heard: { event: string; inquiryId: string; status?: string }[] = [];
    for (const event of ['inquiry:new', 'inquiry:resolved']) {
      watcher.on(event, (p: { inquiryId: string; status?: string }) => heard.push({ event, ...p }));
    }
    await new Promise<void>((resolve, reject) => {
      watcher.once('connect', () => resolve());
      watcher.once('connect_error', reject);
    });
    try {
      const [a, b] = await Promise.all([ask(t, { question: 'A?' }), ask(t, { question: 'B?' })]);
      const ids = [a.pushed.inquiryId, b.pushed.inquiryId];
      await eventually(async () => heard.filter((h) => h.event === 'inquiry:new').length === 2, 5000);
      expect(heard.map((h) => h.inquiryId).sort()).toEqual([...ids].sort());
      // The console only watches: an answer from it is not heard (no ack comes back).
      const ack = await watcher
        .timeout(500)
        .emitWithAck('inquiry:answer', { inquiryId: ids[0], response: 'x' })
        .catch(() => 'no ack');
      expect(ack).toBe('no ack');
      await a.device.emit('inquiry:answer', { inquiryId: ids[0], response: 'yes' });
      await eventually(async () => heard.some((h) => h.event === 'inquiry:resolved'), 5000);
      expect(heard.find((h) => h.event === 'inquiry:resolved')).toMatchObject({
        inquiryId: ids[0],
        status: 'answered',
      });
      await b.device.emit('inquiry:refuse', { inquiryId: ids[1] });
      await Promise.all([a.result, b.result]);
    } finally {
      watcher.disconnect();
    }
  });

  it('ends a pending inquiry: the device card closes, the held call returns cancelled, the log names who', async () => {
    const user = newUser();
    const asked = await ask(t, { question: 'Deploy to prod?' }, user);
    const id = asked.pushed.inquiryId;

    // Only ops: the person's own device and the asking agent are refused, and nothing ends.
    expect((await cancel(id, await t.token(user, 'device'))).status).toBe(403);
    expect((await cancel(id, await t.token(user, 'agent'))).status).toBe(403);
    expect((await cancel(id, '')).status).toBe(401);

    const response = await cancel(id, ops);
    expect(response.status).toBe(200);
    expect(await body(response)).toEqual({ status: 'cancelled' });

    const resolved: InquiryResolvedEvent = await asked.device.nextResolved();
    expect(resolved).toMatchObject({ inquiryId: id, status: 'cancelled', resolvedBy: { kind: 'ops' } });
    const result = await asked.result;
    expect(result.structured).toMatchObject({ inquiryId: id, status: 'cancelled' });
    expect(result.text).toMatch(/cancelled/);

    const again = await cancel(id, ops);
    expect(again.status).toBe(409);
    expect(await body(again)).toMatchObject({ status: 'cancelled', error: { code: 'already_resolved' } });
    expect((await cancel('inq-does-not-exist', ops)).status).toBe(404);

    const records = async () =>
      (await body<Page<DecisionRecord>>(await t.rest(`/api/decisions?user=${user}`, { token: ops }))).items;
    await eventually(async () => (await records()).length === 1, 5000);
    expect((await records())[0]).toMatchObject({
      inquiryId: id,
      outcome: 'cancelled',
      trigger: 'cancel',
      decidedBy: 'ops',
      rationale: 'cancelled by ops: Alice on call (ops-alice)',
    });
  });

  it('a human answer is logged with the time the person took as its latency', async () => {
    const user = newUser();
    const asked = await ask(t, { question: 'Size?' }, user);
    // time itself is under test: the person takes a while, so the logged latency is above zero.
    await new Promise((r) => setTimeout(r, 60));
    await asked.device.emit('inquiry:answer', { inquiryId: asked.pushed.inquiryId, response: 'M' });
    await asked.result;
    const records = async () =>
      (await body<Page<DecisionRecord>>(await t.rest(`/api/decisions?user=${user}`, { token: ops }))).items;
    await eventually(async () => (await records()).length === 1, 5000);
    const [record] = await records();
    expect(record?.latencyMs).toBeGreaterThanOrEqual(50);
    expect(record?.latencyMs).toBe(record?.elapsedMs);
  });
});
