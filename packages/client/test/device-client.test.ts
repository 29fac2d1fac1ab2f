import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { DeviceAck } from '@hitl/protocol';
import { eventually, sleep, startRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Clock, createDeviceClient, type DeviceClient, type ResolvedNotice } from '../src/index.js';
import { agent, startRealNode, structured, token, until } from './real-node.js';

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const FORM = [
  { id: 'size', prompt: 'Size?', kind: 'choice', options: ['S', 'M', 'L'], required: true },
  { id: 'gift', prompt: 'Gift wrap?', kind: 'boolean' },
];

describe('device client against a real node', () => {
  let node: RunningNode;
  const devices: DeviceClient[] = [];
  const device = async (user: string, deviceName: string, extra = {}) => {
    const client = createDeviceClient({
      url: node.url,
      token: await token(node, user, 'device'),
      deviceName,
      ...extra,
    });
    devices.push(client);
    return client;
  };
  beforeAll(async () => {
    node = await startRealNode({
      HITL_DEVICE_TIMEOUT_MS: '1500',
      HITL_SERVICE_TIMEOUT_MS: '5000',
      HITL_CLIENT_TIMEOUT_MS: '8000',
    });
  });
  afterAll(async () => {
    for (const d of devices) d.close();
    await node?.close();
  });

  it('both devices get the inquiry; the first answer wins and the other learns who answered', async () => {
    const user = newUser();
    const [laptop, phone] = [await device(user, 'laptop'), await device(user, 'phone')];
    await Promise.all([until(laptop, (s) => s.synced), until(phone, (s) => s.synced)]);
    const laptopNotices: ResolvedNotice[] = [];
    laptop.on('resolved', (n) => laptopNotices.push(n));
    const news: string[] = [];
    laptop.on('new', (i) => news.push(i.inquiryId));

    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Which size?', questions: FORM, timeoutMs: 5000 },
    });
    const [onLaptop, onPhone] = await Promise.all([
      until(laptop, (s) => s.inquiries.length === 1),
      until(phone, (s) => s.inquiries.length === 1),
    ]);
    const id = onPhone.inquiries[0]!.inquiryId;
    expect(onLaptop.inquiries[0]?.inquiryId).toBe(id);
    expect(onPhone.inquiries[0]?.questions?.map((q) => q.id)).toEqual(['size', 'gift']);
    expect(news).toEqual([id]);

    const bad = await phone.answer(id, { size: 'XL' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await phone.answer(id, { size: 'M', gift: true })).toEqual({ ok: true, status: 'answered' });
    expect(phone.getSnapshot().inquiries).toEqual([]);
    await until(laptop, (s) => s.inquiries.length === 0);
    expect(laptopNotices).toMatchObject([
      {
        inquiryId: id,
        status: 'answered',
        byThisDevice: false,
        resolvedBy: { kind: 'human', deviceName: 'phone' },
      },
    ]);
    const late: DeviceAck = await laptop.answer(id, { size: 'S' });
    expect(late).toMatchObject({ ok: false, error: { code: 'already_resolved' } });
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: { size: 'M', gift: true } });
    await mcp.close();
  });

  it('a device that connects later gets the pending inquiry by sync, and can refuse it', async () => {
    const user = newUser();
    const mcp = await agent(node, user);
    const call = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Budget?', timeoutMs: 5000 } });
    // The inquiry is stored before the tablet connects, so it reaches the tablet by sync, not by a push.
    const listing = { headers: { Authorization: `Bearer ${await token(node, user, 'device')}` } };
    await eventually(async () => {
      const page = (await (await fetch(`${node.url}/api/inquiries`, listing)).json()) as { items: unknown[] };
      return page.items.length === 1;
    });
    const late = await device(user, 'tablet', { deviceTimer: false });
    const synced = await until(late, (s) => s.synced && s.inquiries.length === 1);
    const id = synced.inquiries[0]!.inquiryId;
    expect(await late.refuse(id)).toEqual({ ok: true, status: 'refused' });
    expect(structured(await call)).toMatchObject({
      status: 'refused',
      resolvedBy: { kind: 'human', deviceName: 'tablet', deviceId: late.deviceId },
    });
    await mcp.close();
  });

  it('the device timer reports the deadline once; the call ends timed_out by device-timer', async () => {
    const user = newUser();
    const phone = await device(user, 'phone', { deviceId: 'phone-1' });
    await until(phone, (s) => s.synced);
    const timeouts: DeviceAck[] = [];
    phone.on('timeout', (_id, ack) => timeouts.push(ack));
    const mcp = await agent(node, user);
    const started = Date.now();
    const result = structured(
      await mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Still there?' } }),
    );
    const elapsed = Date.now() - started;
    expect(result).toMatchObject({
      status: 'timed_out',
      resolvedBy: { kind: 'device-timer', deviceId: 'phone-1', deviceName: 'phone' },
    });
    // Device tier 1.5 s, service tier 5 s: the device fired, not the service.
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(timeouts).toEqual([{ ok: true, status: 'timed_out' }]);
    await mcp.close();
  });

  it('an inquiry with an answer window: the countdown runs to answerBy, and it is still held past the hold', async () => {
    const user = newUser();
    const phone = await device(user, 'phone', { deviceId: 'phone-2' });
    await until(phone, (s) => s.synced);
    const timeouts: DeviceAck[] = [];
    phone.on('timeout', (_id, ack) => timeouts.push(ack));
    const mcp = await agent(node, user);
    const call = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Later is fine', timeoutMs: 2000, answerWithinMs: 60_000 },
    });
    const state = await until(phone, (s) => s.inquiries.length === 1);
    const [held] = state.inquiries;
    const answerBy = held?.deadlines.answerBy ?? 0;
    expect(answerBy).toBeGreaterThan(Date.now() + 50_000);
    expect(Math.abs((held?.localDeviceAt ?? 0) - (answerBy - (held?.skewMs ?? 0)))).toBeLessThan(1);
    // Past the 1.5 s device tier (and the 2 s hold): the call is pending, the device reported nothing.
    expect(structured(await call)).toMatchObject({ status: 'pending' });
    expect(timeouts).toEqual([]);
    expect(phone.getSnapshot().inquiries).toHaveLength(1);
    await mcp.close();
  });

  it('a device whose timers run 30x fast reports a plain inquiry early, and never one with an answer window', async () => {
    const user = newUser();
    // Real time, fast timers: every countdown of this device ends after 1/30 of its length.
    const fast: Clock = {
      now: () => Date.now(),
      setTimeout: (fn, ms) => setTimeout(fn, ms / 30),
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
    };
    const phone = await device(user, 'fast phone', { clock: fast });
    await until(phone, (s) => s.synced);
    const timeouts: [string, DeviceAck][] = [];
    phone.on('timeout', (id, ack) => timeouts.push([id, ack]));
    const mcp = await agent(node, user);
    const plain = mcp.callTool({ name: 'send_inquiry', arguments: { question: 'Now?', timeoutMs: 5000 } });
    const plainId = (await until(phone, (s) => s.inquiries.length === 1)).inquiries[0]?.inquiryId;
    // The control: its 1.5 s device tier ends at once here, and the server refuses the early report.
    await eventually(() => timeouts.length === 1);
    expect(timeouts[0]?.[0]).toBe(plainId);
    expect(timeouts[0]?.[1]).toMatchObject({ ok: false, error: { code: 'too_early' } });

    const windowed = mcp.callTool({
      name: 'send_inquiry',
      arguments: { question: 'Later?', timeoutMs: 2000, answerWithinMs: 20_000 },
    });
    const later = await until(phone, (s) => s.inquiries.some((i) => i.question === 'Later?'));
    const laterId = later.inquiries.find((i) => i.question === 'Later?')?.inquiryId ?? '';
    // Its countdown to answerBy (20 s) would end within a second on this clock; the hold ends at 2 s.
    expect(structured(await windowed)).toMatchObject({ status: 'pending', inquiryId: laterId });
    // time itself is under test: past the hold, the fast countdown must not report it for a while.
    await sleep(500);
    expect(timeouts.map(([id]) => id)).toEqual([plainId]);
    expect(await phone.answer(laterId, 'yes')).toEqual({ ok: true, status: 'answered' });
    expect(await phone.answer(plainId ?? '', 'now')).toEqual({ ok: true, status: 'answered' });
    expect(structured(await plain)).toMatchObject({ status: 'answered', answer: 'now' });
    await mcp.close();
  });

  it('a bad token is rejected and not retried', async () => {
    const rejected = createDeviceClient({ url: node.url, token: 'not-a-token', deviceName: 'x' });
    devices.push(rejected);
    const snap = await until(rejected, (s) => s.status === 'rejected');
    expect(snap.errorCode).toBe('unauthorized');
    expect(snap.error).toMatch(/invalid or expired token/);
    const agentToken = createDeviceClient({
      url: node.url,
      token: await token(node, newUser(), 'agent'),
      deviceName: 'x',
    });
    devices.push(agentToken);
    expect((await until(agentToken, (s) => s.status === 'rejected')).errorCode).toBe('forbidden');
  });
});

describe('device client reconnects', () => {
  it('after its node restarts it reconnects with backoff, re-syncs and can still answer', async () => {
    const redis = await startRedisServer();
    const env = {
      REDIS_URL: redis.url,
      HITL_DEVICE_TIMEOUT_MS: '20000',
      HITL_SERVICE_TIMEOUT_MS: '30000',
      HITL_CLIENT_TIMEOUT_MS: '40000',
    };
    let node = await startRealNode(env);
    const user = newUser();
    const phone = createDeviceClient({
      url: node.url,
      token: await token(node, user, 'device'),
      deviceName: 'phone',
      backoff: { baseMs: 100, maxMs: 400 },
    });
    try {
      await until(phone, (s) => s.synced);
      const mcp = await agent(node, user);
      // The call is held on this node; closing the node releases it (the inquiry stays answerable).
      const call = mcp
        .callTool({ name: 'send_inquiry', arguments: { question: 'Ship it?', idempotencyKey: 'k1' } })
        .catch(() => undefined);
      const id = (await until(phone, (s) => s.inquiries.length === 1)).inquiries[0]!.inquiryId;

      const port = new URL(node.url).port;
      await node.close();
      await call;
      await mcp.close();
      await until(phone, (s) => s.status === 'reconnecting');
      node = await startRealNode({ ...env, PORT: port });
      const back = await until(phone, (s) => s.status === 'connected' && s.synced, 10_000);
      expect(back.inquiries.map((i) => i.inquiryId)).toEqual([id]);
      expect(await phone.answer(id, 'yes')).toEqual({ ok: true, status: 'answered' });

      const again = await agent(node, user);
      const result = await again.callTool({ name: 'get_inquiry', arguments: { idempotencyKey: 'k1' } });
      expect(structured(result)).toMatchObject({ inquiryId: id, status: 'answered', answer: 'yes' });
      await again.close();
    } finally {
      phone.close();
      await node.close();
      await redis.stop();
    }
  });
});
