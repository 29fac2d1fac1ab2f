import { randomUUID } from 'node:crypto';
import type { DeviceAck, InquiryResult } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { heldCalls, STORE_KINDS, startTestNode, type TestNode } from './harness.js';

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const TIERS = {
  HITL_DEVICE_TIMEOUT_MS: '2500',
  HITL_SERVICE_TIMEOUT_MS: '4000',
  HITL_CLIENT_TIMEOUT_MS: '6000',
};
const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;
const text = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text ?? '';

describe.each(STORE_KINDS)('tiers, refusal, cancel and re-attach (%s store)', (kind) => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode(kind, TIERS);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('device tier: the device reports its deadline (not before) and the call ends timed_out', async () => {
    const user = newUser();
    const device = await t.device(user, 'phone');
    await device.synced;
    const client = await t.mcp(user);
    const call = client.callTool({ name: 'send_inquiry', arguments: { question: 'Still there?' } });
    const pushed = await device.nextNew();
    const early = await device.emit<DeviceAck>('inquiry:timeout', { inquiryId: pushed.inquiryId });
    expect(early).toMatchObject({ ok: false, error: { code: 'too_early' } });
    // Accepted from the device deadline on, allowing 1 s of clock skew.
    // time itself is under test: the device deadline (tier 1) comes.
    await new Promise((r) => setTimeout(r, pushed.deadlines.deviceAt - pushed.serverTime - 900));
    const onTime = await device.emit<DeviceAck>('inquiry:timeout', { inquiryId: pushed.inquiryId });
    expect(onTime).toEqual({ ok: true, status: 'timed_out' });
    const result = structured(await call);
    expect(result).toMatchObject({
      status: 'timed_out',
      resolvedBy: { kind: 'device-timer', deviceName: 'phone' },
    });
    expect(result.answer).toBe("I'm busy right now; use your own judgement.");
    expect((await device.nextResolved()).status).toBe('timed_out');
  });

  it('service tier: with no device at all the service resolves at its deadline', async () => {
    const client = await t.mcp(newUser());
    const started = Date.now();
    const result = await client.callTool({ name: 'send_inquiry', arguments: { question: 'Anyone?' } });
    const elapsed = Date.now() - started;
    expect(structured(result)).toMatchObject({ status: 'timed_out', resolvedBy: { kind: 'service-timer' } });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toMatch(/No human answered/);
    expect(text(result)).not.toMatch(/approved/i);
    expect(elapsed).toBeGreaterThanOrEqual(3900);
  });

  it('refusal: resolves refused by the human with the preset text', async () => {
    const user = newUser();
    const device = await t.device(user, 'desktop');
    await device.synced;
    const client = await t.mcp(user);
    const call = client.callTool({ name: 'send_inquiry', arguments: { question: 'Your budget?' } });
    const pushed = await device.nextNew();
    expect(await device.emit('inquiry:refuse', { inquiryId: pushed.inquiryId })).toEqual({
      ok: true,
      status: 'refused',
    });
    const result = await call;
    expect(structured(result)).toMatchObject({
      status: 'refused',
      resolvedBy: { kind: 'human', deviceName: 'desktop' },
      answer: "I'm not sure about the details; decide as you see fit.",
    });
    expect(text(result)).toMatch(/declined/);
  });

  it('cancel: notifications/cancelled ends the inquiry and closes it on devices', async () => {
    const user = newUser();
    const device = await t.device(user);
    await device.synced;
    const client = await t.mcp(user);
    const abort = new AbortController();
    const call = client.callTool({ name: 'send_inquiry', arguments: { question: 'Cancel me' } }, undefined, {
      signal: abort.signal,
    });
    const pushed = await device.nextNew();
    abort.abort('changed my mind');
    await expect(call).rejects.toThrow();
    expect(await device.nextResolved()).toMatchObject({
      inquiryId: pushed.inquiryId,
      status: 'cancelled',
      resolvedBy: { kind: 'agent' },
    });
    const later = await client.callTool({ name: 'get_inquiry', arguments: { inquiryId: pushed.inquiryId } });
    expect(structured(later).status).toBe('cancelled');
  });

  it('a dropped connection leaves the inquiry answerable; get_inquiry returns the late answer', async () => {
    const user = newUser();
    const device = await t.device(user);
    await device.synced;
    const agent = await t.token(user, 'agent');
    const abort = new AbortController();
    const response = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        authorization: `Bearer ${agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'send_inquiry', arguments: { question: 'Drop me?' } },
      }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const pushed = await device.nextNew();
    abort.abort();
    // The node lets go of the dropped call before the answer comes.
    await eventually(async () => (await heldCalls(t.url)) === 0);
    const ack = await device.emit<DeviceAck>('inquiry:answer', {
      inquiryId: pushed.inquiryId,
      response: 'yes',
    });
    expect(ack).toEqual({ ok: true, status: 'answered' });
    const client = await t.mcp(user);
    const later = await client.callTool({ name: 'get_inquiry', arguments: { inquiryId: pushed.inquiryId } });
    expect(structured(later)).toMatchObject({ status: 'answered', answer: 'yes' });
    expect(await heldCalls(t.url)).toBe(0);
  });

  it('the same idempotencyKey twice is one inquiry, and both calls get its answer', async () => {
    const user = newUser();
    const device = await t.device(user);
    await device.synced;
    const client = await t.mcp(user);
    const args = { question: 'Size?', idempotencyKey: 'order-42-size' };
    const before = await heldCalls(t.url);
    const first = client.callTool({ name: 'send_inquiry', arguments: args });
    const pushed = await device.nextNew();
    const second = client.callTool({ name: 'send_inquiry', arguments: args });
    const waited = client.callTool({
      name: 'get_inquiry',
      arguments: { idempotencyKey: 'order-42-size', waitMs: 1500 },
    });
    // All three wait on the one inquiry when the answer comes.
    await eventually(async () => (await heldCalls(t.url)) === before + 3);
    await device.emit('inquiry:answer', { inquiryId: pushed.inquiryId, response: '42' });
    for (const result of await Promise.all([first, second, waited])) {
      expect(structured(result)).toMatchObject({
        inquiryId: pushed.inquiryId,
        status: 'answered',
        answer: '42',
      });
    }
    expect(device.received.filter((r) => r.event === 'inquiry:new')).toHaveLength(1);
  });

  it('get_inquiry with waitMs and a progress token sends the first progress at once, as send_inquiry does', async () => {
    const user = newUser();
    const device = await t.device(user);
    await device.synced;
    const client = await t.mcp(user);
    const call = client.callTool({ name: 'send_inquiry', arguments: { question: 'Collect me later' } });
    const pushed = await device.nextNew();
    const progress: Progress[] = [];
    const waited = client.callTool(
      { name: 'get_inquiry', arguments: { inquiryId: pushed.inquiryId, waitMs: 60_000 } },
      undefined,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true },
    );
    // At once, not a heartbeat period later: a client that resets its timeout on progress holds on.
    await vi.waitFor(() => expect(progress).toHaveLength(1), { timeout: 2000 });
    expect(progress[0]).toMatchObject({
      progress: 0,
      message: 'Collect me later',
      _meta: { inquiryId: pushed.inquiryId, question: 'Collect me later', type: 'INQUIRY' },
    });
    await device.emit('inquiry:answer', { inquiryId: pushed.inquiryId, response: 'now' });
    expect(structured(await waited)).toMatchObject({ status: 'answered', answer: 'now' });
    expect(structured(await call).status).toBe('answered');
  });

  it('get_inquiry with waitMs returns pending when the wait ends first; others see not_found', async () => {
    const user = newUser();
    const device = await t.device(user);
    await device.synced;
    const client = await t.mcp(user);
    const call = client.callTool({ name: 'send_inquiry', arguments: { question: 'Long one' } });
    const pushed = await device.nextNew();
    const started = Date.now();
    const waited = await client.callTool({
      name: 'get_inquiry',
      arguments: { inquiryId: pushed.inquiryId, waitMs: 300 },
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(structured(waited)).toMatchObject({ inquiryId: pushed.inquiryId, status: 'pending' });
    expect(text(waited)).toContain('get_inquiry');
    expect(structured(waited).answer).toBeUndefined();

    const missing = await client.callTool({ name: 'get_inquiry', arguments: { inquiryId: 'nope' } });
    expect(structured(missing)).toMatchObject({ status: 'not_found', inquiryId: null });
    const other = await t.mcp(newUser());
    const foreign = await other.callTool({ name: 'get_inquiry', arguments: { inquiryId: pushed.inquiryId } });
    expect(structured(foreign).status).toBe('not_found');
    await device.emit('inquiry:answer', { inquiryId: pushed.inquiryId, response: 'done' });
    expect(structured(await call).status).toBe('answered');
  });
});
