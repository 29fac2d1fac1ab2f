import { randomUUID } from 'node:crypto';
import type { DeviceAck, ErrorBody } from '@hitl/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, STORE_KINDS, startTestNode, type TestNode } from './harness.js';

const newUser = () => `u-${randomUUID().slice(0, 8)}`;

describe.each(STORE_KINDS)('send_inquiry end to end (%s store)', (kind) => {
  let t: TestNode;
  beforeAll(async () => {
    t = await startTestNode(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists both tools with output schemas, and the clarify prompt', async () => {
    const client = await t.mcp(newUser());
    const { tools } = await client.listTools();
    // answer_inquiry is the inquiry card's own (visibility "app": hosts keep it from the model).
    expect(tools.map((tool) => tool.name).sort()).toEqual(['answer_inquiry', 'get_inquiry', 'send_inquiry']);
    const send = tools.find((tool) => tool.name === 'send_inquiry');
    expect(send?.inputSchema.required).toEqual(['question']);
    expect(send?.outputSchema?.properties).toHaveProperty('resolvedBy');
    expect(send?.description).not.toMatch(/\btool\b|LLM/i);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['clarify_user_intent']);
    const prompt = await client.getPrompt({
      name: 'clarify_user_intent',
      arguments: { request: 'buy shoes' },
    });
    const text = (prompt.messages[0]?.content as { text?: string } | undefined)?.text;
    expect(text).toContain('send_inquiry');
    expect(text).toContain('buy shoes');
  });

  it('reaches every device; the first answer wins and closes the prompt everywhere', async () => {
    const user = newUser();
    const devices = await Promise.all(['desktop', 'phone', 'terminal'].map((name) => t.device(user, name)));
    await Promise.all(devices.map((d) => d.synced));
    const client = await t.mcp(user);
    const progress: { progress: number; message?: string; _meta?: Record<string, unknown> }[] = [];
    const call = client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Which size?', options: ['S', 'M', 'L'] } },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 20_000 },
    );
    const pushed = await Promise.all(devices.map((d) => d.nextNew()));
    const inquiryId = pushed[0]?.inquiryId;
    expect(new Set(pushed.map((p) => p.inquiryId)).size).toBe(1);
    expect(pushed[0]).toMatchObject({ question: 'Which size?', options: ['S', 'M', 'L'], kind: 'question' });
    expect(pushed[0]?.deadlines.deviceAt).toBeLessThan(pushed[0]?.deadlines.serviceAt ?? 0);

    const [desktop, phone, terminal] = devices;
    const ack = await phone?.emit<DeviceAck>('inquiry:answer', { inquiryId, response: 'M' });
    expect(ack).toEqual({ ok: true, status: 'answered' });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      inquiryId,
      status: 'answered',
      answer: 'M',
      resolvedBy: { kind: 'human', deviceName: 'phone' },
    });
    expect((result.content as { text: string }[])[0]?.text).toContain('M');
    expect(progress[0]).toMatchObject({
      progress: 0,
      message: 'Which size?',
      _meta: { inquiryId, question: 'Which size?', type: 'INQUIRY' },
    });

    for (const other of [desktop, terminal, phone]) {
      expect(await other?.nextResolved()).toMatchObject({ inquiryId, status: 'answered' });
    }
    const late = await desktop?.emit<DeviceAck>('inquiry:answer', { inquiryId, response: 'L' });
    expect(late).toMatchObject({ ok: false, error: { code: 'already_resolved' }, status: 'answered' });

    const rest = await t.rest(`/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      token: await t.token(user, 'device'),
      body: JSON.stringify({ response: 'S' }),
    });
    expect(rest.status).toBe(409);
    expect(await rest.json()).toMatchObject({
      status: 'answered',
      resolvedBy: { kind: 'human', deviceName: 'phone' },
    });
  });

  it('returns a structured form answer keyed by question id', async () => {
    const user = newUser();
    const device = await t.device(user, 'phone');
    await device.synced;
    const client = await t.mcp(user);
    const questions = [
      { id: 'size', prompt: 'Size?', kind: 'choice', options: ['S', 'M', 'L'], required: true },
      { id: 'colours', prompt: 'Colours?', kind: 'multi', options: ['red', 'blue', 'black'] },
      { id: 'budget', prompt: 'Budget (EUR)?', kind: 'number', default: 80 },
      { id: 'gift', prompt: 'A gift?', kind: 'boolean' },
      { id: 'note', prompt: 'Anything else?', kind: 'text' },
    ];
    const call = client.callTool({
      name: 'send_inquiry',
      arguments: { question: 'A few details', questions, defaultAnswer: { size: 'M' } },
    });
    const pushed = await device.nextNew();
    expect(pushed.format).toBe('form');
    expect(pushed.questions?.map((q) => q.id)).toEqual(['size', 'colours', 'budget', 'gift', 'note']);
    expect(pushed.defaultAnswer).toEqual({ size: 'M' });

    const bad = await device.emit<DeviceAck>('inquiry:answer', {
      inquiryId: pushed.inquiryId,
      response: { size: 'XXL' },
    });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const answer = { size: 'L', colours: ['red', 'black'], budget: 120, gift: true, note: 'no wool' };
    expect(await device.emit('inquiry:answer', { inquiryId: pushed.inquiryId, response: answer })).toEqual({
      ok: true,
      status: 'answered',
    });
    const result = await call;
    expect(result.structuredContent).toMatchObject({ status: 'answered', answer });
  });

  it('answers over REST for the winner with 200, and gives a device only its own user', async () => {
    const user = newUser();
    const client = await t.mcp(user);
    const call = client.callTool({ name: 'send_inquiry', arguments: { question: 'Ship today?' } });
    const device = await t.device(user);
    const sync = await device.synced;
    const pending = sync.inquiries.length > 0 ? sync.inquiries[0] : await device.nextNew();
    const inquiryId = pending?.inquiryId ?? '';

    const stranger = await t.token(newUser(), 'device');
    const peek = await t.rest(`/api/inquiries/${inquiryId}`, { token: stranger });
    expect(peek.status).toBe(404);
    const steal = await t.rest(`/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      token: stranger,
      body: JSON.stringify({ response: 'yes' }),
    });
    expect(steal.status).toBe(404);
    const strangerList = await t.rest('/api/inquiries', { token: stranger });
    expect((await body<{ items: unknown[] }>(strangerList)).items).toEqual([]);

    const owner = await t.token(user, 'device');
    const list = await t.rest('/api/inquiries?status=pending', { token: owner });
    expect((await body<{ items: { inquiryId: string }[] }>(list)).items.map((i) => i.inquiryId)).toContain(
      inquiryId,
    );
    const empty = await t.rest(`/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      token: owner,
      body: JSON.stringify({ response: '' }),
    });
    expect(empty.status).toBe(400);
    expect((await body<ErrorBody>(empty)).error.code).toBe('invalid_input');
    const ok = await t.rest(`/api/inquiries/${inquiryId}/answer`, {
      method: 'POST',
      token: owner,
      body: JSON.stringify({ response: 'yes, today' }),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ status: 'answered' });
    expect((await call).structuredContent).toMatchObject({ status: 'answered', answer: 'yes, today' });

    const ops = await t.token('ops', 'ops');
    const opsView = await t.rest(`/api/inquiries/${inquiryId}`, { token: ops });
    expect(opsView.status).toBe(200);
    expect(await opsView.json()).toMatchObject({ inquiryId, userId: user, status: 'answered' });
  });
});
