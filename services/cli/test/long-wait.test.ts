import { connectDevice, type TestDevice } from '@hitl/inquiry/testing';
import type { DeviceAck, InquiryResult } from '@hitl/protocol';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, gauge, mcpClient, type NodeProcess, sleep, spawnNode, token } from './node-process.js';

/** Long waits: an answer window longer than the hold; `pending`, then `get_inquiry` with `waitMs`. */

type ToolResult = { structuredContent: InquiryResult; content: { type: string; text: string }[] };
const call = async (agent: Client, name: string, args: Record<string, unknown>) =>
  (await agent.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as ToolResult;

describe('answer windows beyond the hold (real nodes, SDK client, socket.io devices)', () => {
  const started: NodeProcess[] = [];
  const devices: TestDevice[] = [];
  let redis: TestRedisServer | undefined;
  const start = async (env: Record<string, string> = {}) => {
    const node = await spawnNode({ HITL_SWEEP_MS: '200', ...env });
    started.push(node);
    return node;
  };
  const device = async (url: string, user: string) => {
    const d = await connectDevice(url, await token(user, 'device'), 'phone');
    devices.push(d);
    await d.synced;
    return d;
  };
  afterAll(async () => {
    for (const d of devices) d.socket.disconnect();
    await Promise.all(started.map((node) => node.kill('SIGKILL')));
    await redis?.stop();
  });

  it('a 3 s hold with a 20 s window: pending at 3 s, answered at 8 s, collected by get_inquiry', async () => {
    const node = await start();
    const user = 'window-one';
    const phone = await device(node.url, user);
    const agent = await mcpClient(node.url, user);
    const t0 = Date.now();
    const asked = call(agent, 'send_inquiry', {
      question: 'Which size?',
      timeoutMs: 3000,
      answerWithinMs: 20_000,
    });
    const shown = await phone.nextNew();
    expect(shown.deadlines.answerBy).toBeGreaterThanOrEqual(t0 + 19_000);
    expect(shown.deadlines.answerBy).toBeLessThanOrEqual(Date.now() + 20_000);
    // No device timer ends a question with an answer window.
    const early = await phone.emit<DeviceAck>('inquiry:timeout', { inquiryId: shown.inquiryId });
    expect(early).toMatchObject({ ok: false, error: { code: 'too_early' } });

    const first = await asked;
    const heldFor = Date.now() - t0;
    expect(first.structuredContent).toMatchObject({ status: 'pending', inquiryId: shown.inquiryId });
    expect(first.structuredContent.answer).toBeUndefined();
    // time itself is under test: the held call answers `pending` at its time tier, not before and not
    // at the end of the answer window.
    expect(heldFor).toBeGreaterThanOrEqual(2900);
    expect(heldFor).toBeLessThan(12_000);
    const text = first.content[0]?.text ?? '';
    expect(text).toContain('has not answered yet');
    expect(text).toContain('get_inquiry');
    expect(text).toContain(shown.inquiryId);
    expect(text).toContain('approved');

    // The question is still open after the hold; a long-poll collects the answer when it comes.
    const collected = call(agent, 'get_inquiry', { inquiryId: shown.inquiryId, waitMs: 30_000 });
    // time itself is under test: the person answers at 8 s, well past the 3 s hold.
    await sleep(Math.max(0, t0 + 8000 - Date.now()));
    expect(
      await phone.emit<DeviceAck>('inquiry:answer', { inquiryId: shown.inquiryId, response: 'M' }),
    ).toEqual({ ok: true, status: 'answered' });
    const result = await collected;
    expect(result.structuredContent).toMatchObject({
      status: 'answered',
      answer: 'M',
      resolvedBy: { kind: 'human', deviceName: 'phone' },
    });
  }, 60_000);

  it('a window that runs out times out by the service timer at answerBy, not at the hold; the fallback runs', async () => {
    const node = await start();
    const user = 'window-out';
    const phone = await device(node.url, user);
    const agent = await mcpClient(node.url, user);
    const t0 = Date.now();
    const plain = call(agent, 'send_inquiry', { question: 'Plain?', timeoutMs: 2000, answerWithinMs: 6000 });
    const plainId = (await phone.nextNew()).inquiryId;
    const fallback = call(agent, 'send_inquiry', {
      question: 'With a fallback?',
      timeoutMs: 2000,
      answerWithinMs: 6000,
      defaultAnswer: 'blue',
      fallback: { onTimeout: 'default_answer' },
    });
    const fallbackId = (await phone.nextNew()).inquiryId;
    expect((await plain).structuredContent.status).toBe('pending');
    expect((await fallback).structuredContent.status).toBe('pending');

    const [plainEnd, fallbackEnd] = await Promise.all([
      call(agent, 'get_inquiry', { inquiryId: plainId, waitMs: 30_000 }),
      call(agent, 'get_inquiry', { inquiryId: fallbackId, waitMs: 30_000 }),
    ]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(5500);
    expect(plainEnd.structuredContent).toMatchObject({
      status: 'timed_out',
      resolvedBy: { kind: 'service-timer' },
    });
    expect(plainEnd.structuredContent.elapsedMs).toBeGreaterThanOrEqual(5500);
    expect(fallbackEnd.structuredContent).toMatchObject({
      answer: 'blue',
      resolvedBy: { kind: 'decision-agent', strategy: 'default_answer', trigger: 'service-timer' },
    });
  }, 60_000);

  it('get_inquiry with waitMs sends heartbeats while it waits and says pending when the wait ends first', async () => {
    const node = await start({ HITL_HEARTBEAT_MS: '500' });
    const user = 'window-poll';
    const phone = await device(node.url, user);
    const agent = await mcpClient(node.url, user);
    const asked = call(agent, 'send_inquiry', {
      question: 'Later?',
      timeoutMs: 1000,
      answerWithinMs: 60_000,
    });
    const { inquiryId } = await phone.nextNew();
    expect((await asked).structuredContent.status).toBe('pending');
    const beats: number[] = [];
    const t0 = Date.now();
    const polled = (await agent.callTool(
      { name: 'get_inquiry', arguments: { inquiryId, waitMs: 3000 } },
      undefined,
      {
        onprogress: (p) => beats.push(p.progress),
      },
    )) as ToolResult;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2900);
    expect(polled.structuredContent).toMatchObject({ inquiryId, status: 'pending' });
    expect(polled.content[0]?.text).toContain('get_inquiry');
    expect(beats.length).toBeGreaterThanOrEqual(3);
    expect(beats).toEqual([...beats].sort((a, b) => a - b));
  }, 60_000);

  it("a client that cuts the call on its own timer (the SDK's notifications/cancelled) does not cancel the question", async () => {
    const node = await start();
    const user = 'window-cut';
    const phone = await device(node.url, user);
    const agent = await mcpClient(node.url, user);
    const cut = agent.callTool(
      {
        name: 'send_inquiry',
        arguments: { question: 'Still open after my timeout?', answerWithinMs: 60_000 },
      },
      undefined,
      { timeout: 1500 },
    );
    const { inquiryId } = await phone.nextNew();
    await expect(cut).rejects.toThrow(/timed out/i);
    // The SDK's notifications/cancelled has arrived, and was taken for what it is.
    await eventually(() => node.output().includes('client timed out; the inquiry stays open'));
    expect(await phone.emit<DeviceAck>('inquiry:answer', { inquiryId, response: 'yes' })).toEqual({
      ok: true,
      status: 'answered',
    });
    const collected = await call(agent, 'get_inquiry', { inquiryId });
    expect(collected.structuredContent).toMatchObject({ status: 'answered', answer: 'yes' });
    // An explicit cancel (any other reason) still calls the question off.
    const controller = new AbortController();
    const cancelled = agent.callTool(
      { name: 'send_inquiry', arguments: { question: 'Cancel me' } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    const second = await phone.nextNew();
    controller.abort('the user closed the chat');
    await expect(cancelled).rejects.toThrow();
    let closed = await phone.nextResolved();
    while (closed.inquiryId !== second.inquiryId) closed = await phone.nextResolved();
    expect(closed.status).toBe('cancelled');
  }, 60_000);

  it('refuses a window above HITL_MAX_ANSWER_WINDOW_MS, naming the field', async () => {
    const node = await start({ HITL_MAX_ANSWER_WINDOW_MS: '60000' });
    const agent = await mcpClient(node.url, 'window-cap');
    await expect(
      agent.callTool({ name: 'send_inquiry', arguments: { question: 'Long?', answerWithinMs: 120_000 } }),
    ).rejects.toThrow(/answerWithinMs: must be at most 60000/);
  }, 60_000);

  it('across two nodes: the asking node dies after the hold, the other serves the answer', async () => {
    redis = await startRedisServer();
    const [a, b] = await Promise.all([start({ REDIS_URL: redis.url }), start({ REDIS_URL: redis.url })]);
    if (!a || !b) throw new Error('nodes did not start');
    const user = 'window-two';
    const phone = await device(b.url, user);
    const agentA = await mcpClient(a.url, user);
    const first = await call(agentA, 'send_inquiry', {
      question: 'Ship today?',
      timeoutMs: 3000,
      answerWithinMs: 30_000,
      idempotencyKey: 'ship-today',
    });
    expect(first.structuredContent.status).toBe('pending');
    const inquiryId = first.structuredContent.inquiryId as string;
    expect(await a.kill('SIGKILL')).toBe('SIGKILL');

    const agentB = await mcpClient(b.url, user);
    const collected = call(agentB, 'get_inquiry', { idempotencyKey: 'ship-today', waitMs: 30_000 });
    await eventually(async () => (await gauge(b.url, 'hitl_held_calls')) === 1);
    expect(await phone.emit<DeviceAck>('inquiry:answer', { inquiryId, response: 'yes' })).toEqual({
      ok: true,
      status: 'answered',
    });
    expect((await collected).structuredContent).toMatchObject({
      inquiryId,
      status: 'answered',
      answer: 'yes',
    });
    // A retried send_inquiry with the same key re-attaches and gets the same answer.
    const retried = await call(agentB, 'send_inquiry', {
      question: 'Ship today?',
      timeoutMs: 3000,
      answerWithinMs: 30_000,
      idempotencyKey: 'ship-today',
    });
    expect(retried.structuredContent).toMatchObject({ inquiryId, status: 'answered', answer: 'yes' });
  }, 90_000);
});
