import type { DeviceInquiry, InquiryResult } from '@hitl/protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { body, startTestNode, type TestDevice, type TestNode } from './harness.js';

/**
 * What people add to an answer: a reason the agent reads, and edited arguments checked against the
 * tool's input schema. A real node, real socket.io devices, the official MCP client.
 */
type Ack = { ok: boolean; status?: string; error?: { code: string; message: string } };

const DELETE_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1 },
    recursive: { type: 'boolean' },
    keepDays: { type: 'integer', minimum: 0 },
  },
  required: ['path'],
  additionalProperties: false,
};

const approval = (extra: Record<string, unknown> = {}) => ({
  question: 'Delete the cache?',
  kind: 'approval',
  action: {
    server: 'files',
    tool: 'delete',
    arguments: { path: '/srv/cache', recursive: true },
    inputSchema: DELETE_SCHEMA,
  },
  ...extra,
});

let t: TestNode;
let phone: TestDevice;
let deviceToken: string;

beforeAll(async () => {
  t = await startTestNode('memory');
  phone = await t.device('ann', 'phone');
  await phone.synced;
  deviceToken = await t.token('ann', 'device');
}, 30_000);

afterAll(async () => {
  await t?.close();
});

/** Asks as ann's agent; resolves with the held call's result. */
async function ask(
  args: Record<string, unknown>,
): Promise<{ shown: DeviceInquiry; call: Promise<CallToolResult> }> {
  const agent = await t.mcp('ann');
  const call = agent.callTool({ name: 'send_inquiry', arguments: args }, undefined, {
    timeout: 30_000,
  }) as Promise<CallToolResult>;
  return { shown: await phone.nextNew(), call };
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

async function statusOf(inquiryId: string): Promise<string> {
  const response = await t.rest(`/api/inquiries/${inquiryId}`, { token: deviceToken });
  return (await body<{ status: string }>(response)).status;
}

describe('a reason the agent reads', () => {
  it('comes with a reject over the socket', async () => {
    const { shown, call } = await ask(approval());
    const ack = await phone.emit<Ack>('inquiry:answer', {
      inquiryId: shown.inquiryId,
      response: 'reject',
      reason: 'not the whole cache, only /srv/cache/tmp',
    });
    expect(ack).toMatchObject({ ok: true, status: 'answered' });
    const result = await call;
    expect(result.structuredContent).toMatchObject({
      answer: 'reject',
      reason: 'not the whole cache, only /srv/cache/tmp',
    });
    expect(textOf(result)).toContain('They said: "not the whole cache, only /srv/cache/tmp"');
  });

  it('comes with a refusal over REST, and the device is not shown it', async () => {
    const { shown, call } = await ask({ question: 'Which size?', options: ['S', 'M'] });
    expect(shown).not.toHaveProperty('reason');
    const response = await t.rest(`/api/inquiries/${shown.inquiryId}/refuse`, {
      method: 'POST',
      token: deviceToken,
      body: JSON.stringify({ reason: 'ask my partner' }),
    });
    expect(response.status).toBe(200);
    const result = await call;
    expect(result.structuredContent).toMatchObject({ status: 'refused', reason: 'ask my partner' });
    expect(textOf(result)).toContain('declined');
    expect(textOf(result)).toContain('They said: "ask my partner"');
  });

  it('over 1,000 characters is refused and the question stays open', async () => {
    const { shown, call } = await ask(approval());
    const ack = await phone.emit<Ack>('inquiry:refuse', {
      inquiryId: shown.inquiryId,
      reason: 'x'.repeat(1001),
    });
    expect(ack).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(ack.error?.message).toContain('reason');
    const rest = await t.rest(`/api/inquiries/${shown.inquiryId}/answer`, {
      method: 'POST',
      token: deviceToken,
      body: JSON.stringify({ response: 'reject', reason: 'y'.repeat(1001) }),
    });
    expect(rest.status).toBe(400);
    expect(await statusOf(shown.inquiryId)).toBe('pending');
    await phone.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'reject' });
    expect((await call).structuredContent).not.toHaveProperty('reason');
  });
});

describe('edit before approve', () => {
  it('devices get the editable names and the input schema', async () => {
    const { shown, call } = await ask(approval({ editable: ['path'] }));
    expect(shown).toMatchObject({ editable: ['path'], action: { inputSchema: DELETE_SCHEMA } });
    await phone.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'reject' });
    await call;
  });

  it('an edit that breaks the schema or touches another name is refused; the approval stays answerable', async () => {
    const { shown, call } = await ask(approval({ editable: ['path', 'keepDays'] }));
    const send = (args: unknown) =>
      phone.emit<Ack>('inquiry:answer', { inquiryId: shown.inquiryId, response: 'approve', arguments: args });
    const broken = await send({ path: '' });
    expect(broken).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(broken.error?.message).toMatch(/^arguments\.path: /);
    const wrongType = await send({ keepDays: 1.5 });
    expect(wrongType.error?.message).toMatch(/^arguments\.keepDays: must be integer/);
    const notEditable = await send({ recursive: false });
    expect(notEditable.error?.message).toBe('arguments.recursive: not editable on this approval');
    // The same value for a name that is not editable is no edit.
    const rest = await t.rest(`/api/inquiries/${shown.inquiryId}/answer`, {
      method: 'POST',
      token: deviceToken,
      body: JSON.stringify({ response: 'approve', arguments: { path: '/srv/cache/tmp', extra: 1 } }),
    });
    expect(rest.status).toBe(400);
    expect((await body<{ error: { message: string } }>(rest)).error.message).toContain('arguments.extra');
    expect(await statusOf(shown.inquiryId)).toBe('pending');

    const ok = await send({ path: '/srv/cache/tmp', recursive: true });
    expect(ok).toMatchObject({ ok: true, status: 'answered' });
    const result = await call;
    expect(result.structuredContent).toMatchObject({
      answer: 'approve',
      arguments: { path: '/srv/cache/tmp', recursive: true },
      changed: ['path'],
    });
    expect(textOf(result)).toContain('changed: path');
    expect(textOf(result)).toContain('"/srv/cache/tmp"');
  });

  it('an approve with no edit carries the asked arguments and no change', async () => {
    const { shown, call } = await ask(approval({ editable: true }));
    await phone.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'approve' });
    const result = (await call).structuredContent as InquiryResult;
    expect(result).toMatchObject({ arguments: { path: '/srv/cache', recursive: true }, changed: [] });
  });

  it('refuses edits where the asker did not allow them', async () => {
    const { shown, call } = await ask(approval());
    const ack = await phone.emit<Ack>('inquiry:answer', {
      inquiryId: shown.inquiryId,
      response: 'approve',
      arguments: { path: '/tmp' },
    });
    expect(ack.error?.message).toContain('does not let you edit');
    await phone.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'reject' });
    await call;
  });

  it('refuses an input schema it cannot compile when the asker makes arguments editable', async () => {
    const agent = await t.mcp('ann');
    const asked = agent.callTool({
      name: 'send_inquiry',
      arguments: approval({
        editable: true,
        action: { server: 's', tool: 't', arguments: {}, inputSchema: { type: 'object', properties: 3 } },
      }),
    });
    await expect(asked).rejects.toThrow(/-32602.*action\.inputSchema: not a JSON Schema/);
  });
});

describe('bad input is refused with the field named, and nothing changes', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['arguments not an object', { arguments: ['/tmp'] }, /arguments/],
    ['arguments a string', { arguments: '/tmp' }, /arguments/],
    ['arguments too deep', { arguments: { path: nest(20) } }, /nested deeper than 16/],
    ['arguments too big', { arguments: { path: 'x'.repeat(33 * 1024) } }, /over 32768 bytes/],
    ['allowFor.minutes 0', { allowFor: { minutes: 0 } }, /allowFor\.minutes/],
    ['allowFor.minutes negative', { allowFor: { minutes: -5 } }, /allowFor\.minutes/],
    ['allowFor.minutes not whole', { allowFor: { minutes: 1.5 } }, /allowFor\.minutes/],
    ['allowFor.minutes huge', { allowFor: { minutes: 1e9 } }, /allowFor\.minutes/],
    [
      'allowFor.minutes over the node cap',
      { allowFor: { minutes: 24 * 60 + 1 } },
      /allowFor\.minutes: must be at most 1440/,
    ],
    ['allowFor unknown key', { allowFor: { minutes: 5, forever: true } }, /allowFor/],
  ];

  let shown: DeviceInquiry;
  let call: Promise<CallToolResult>;
  beforeAll(async () => {
    ({ shown, call } = await ask(approval({ editable: true })));
  });
  afterAll(async () => {
    await phone.emit('inquiry:answer', { inquiryId: shown.inquiryId, response: 'reject' });
    await call;
  });

  it.each(cases)('%s: an ack error on the socket', async (_name, extra, message) => {
    const ack = await phone.emit<Ack>('inquiry:answer', {
      inquiryId: shown.inquiryId,
      response: 'approve',
      ...extra,
    });
    expect(ack).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(ack.error?.message).toMatch(message);
    expect(await statusOf(shown.inquiryId)).toBe('pending');
  });

  it.each(cases)('%s: a 400 on REST', async (_name, extra, message) => {
    const response = await t.rest(`/api/inquiries/${shown.inquiryId}/answer`, {
      method: 'POST',
      token: deviceToken,
      body: JSON.stringify({ response: 'approve', ...extra }),
    });
    expect(response.status).toBe(400);
    expect((await body<{ error: { message: string } }>(response)).error.message).toMatch(message);
    expect(await statusOf(shown.inquiryId)).toBe('pending');
  });
});

/** `{a: {a: ...}}`, `levels` deep. */
function nest(levels: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}
