import type { DeviceInquiry, InquiryResult } from '@hitl/protocol';
import { CallToolResultSchema, type ElicitRequestFormParams } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  aborted,
  type ChatNode,
  chatClient,
  elicitations,
  logLine,
  useChatPairBehindBalancer,
} from './chat-harness.js';
import { newUser } from './decision-helpers.js';

const CALL_OPTIONS = { timeout: 30_000, resetTimeoutOnProgress: true, onprogress: () => undefined };

function structured(result: unknown): InquiryResult {
  return CallToolResultSchema.parse(result).structuredContent as InquiryResult;
}

// Two real nodes on one redis-server behind a round-robin balancer: the client's POSTs alternate
// between the nodes, so the response to an elicitation written by the node holding the call is
// POSTed to the other node, which must find the inquiry from the signed id alone.
describe('the agent chat as a device, across two nodes', () => {
  const nodes = useChatPairBehindBalancer();

  /** Where the tools/call and the response to its elicitation went (the last of each in the routes). */
  function nodesOf(): { call: number; response: number } {
    const call = nodes.balancer.routes.findLast((r) => r.messages.includes('request:tools/call'));
    const response = nodes.balancer.routes.findLast((r) => r.messages.includes('response'));
    return { call: call?.target ?? -1, response: response?.target ?? -1 };
  }

  it('asks a held send_inquiry in the chat; the answer, posted to the other node, wins as the chat device', async () => {
    const user = newUser();
    const asked = elicitations();
    asked.answerWith(async () => ({ action: 'accept', content: { answer: 'M' } }));
    const { client } = await chatClient(nodes.balancer.url, await nodes.a.token(user, 'agent', 'Shop bot'), {
      onElicit: asked.handler,
    });
    const result = await client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Which size?', options: ['S', 'M', 'L'] } },
      CallToolResultSchema,
      CALL_OPTIONS,
    );
    expect(structured(result)).toMatchObject({
      status: 'answered',
      answer: 'M',
      resolvedBy: { kind: 'human', userId: user, deviceName: 'Test Chat (chat)' },
    });
    const { request } = await asked.next();
    const params = request.params as ElicitRequestFormParams;
    expect(params.message).toContain('Shop bot asks:');
    expect(params.message).toContain('Which size?');
    expect(params.requestedSchema).toEqual({
      type: 'object',
      properties: { answer: { type: 'string', title: 'Your answer', enum: ['S', 'M', 'L'] } },
      required: ['answer'],
    });
    const { call, response } = nodesOf();
    expect(call).toBeGreaterThanOrEqual(0);
    expect(response).not.toBe(call);
    const taker = [nodes.a, nodes.b][response] as ChatNode;
    // The taking node logs once its settle (and the audit record) is done: maybe after the result.
    await expect
      .poll(() => logLine(taker.lines, 'answered in the chat'))
      .toMatchObject({ userId: user, outcome: 'won' });
    await client.close();
  });

  it('maps a form to flat fields with defaults, and the answer keyed by question id', async () => {
    const user = newUser();
    const asked = elicitations();
    asked.answerWith(async () => ({
      action: 'accept',
      content: { size: 'M', colours: ['red', 'blue'], budget: 40, gift: true, note: 'thanks' },
    }));
    const { client } = await chatClient(nodes.balancer.url, await nodes.a.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    const questions = [
      { id: 'size', prompt: 'Size', kind: 'choice', options: ['S', 'M', 'L'], required: true },
      { id: 'colours', prompt: 'Colours', kind: 'multi', options: ['red', 'blue', 'green'] },
      { id: 'budget', prompt: 'Budget', kind: 'number', default: 50 },
      { id: 'gift', prompt: 'Gift wrap?', kind: 'boolean' },
      { id: 'note', prompt: 'A note', kind: 'text' },
    ];
    const result = await client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Your order', format: 'form', questions } },
      CallToolResultSchema,
      CALL_OPTIONS,
    );
    expect(structured(result)).toMatchObject({
      status: 'answered',
      answer: { size: 'M', colours: ['red', 'blue'], budget: 40, gift: true, note: 'thanks' },
    });
    const params = (await asked.next()).request.params as ElicitRequestFormParams;
    expect(params.requestedSchema).toEqual({
      type: 'object',
      properties: {
        size: { type: 'string', title: 'Size', enum: ['S', 'M', 'L'] },
        colours: {
          type: 'array',
          title: 'Colours',
          items: { type: 'string', enum: ['red', 'blue', 'green'] },
        },
        budget: { type: 'number', title: 'Budget', default: 50 },
        gift: { type: 'boolean', title: 'Gift wrap?' },
        note: { type: 'string', title: 'A note', maxLength: 8192 },
      },
      required: ['size'],
    });
    await client.close();
  });

  it('decline refuses as the chat device', async () => {
    const user = newUser();
    const asked = elicitations();
    asked.answerWith(async () => ({ action: 'decline' }));
    const { client } = await chatClient(nodes.balancer.url, await nodes.a.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    const result = await client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Tell me your password?' } },
      CallToolResultSchema,
      CALL_OPTIONS,
    );
    expect(structured(result)).toMatchObject({
      status: 'refused',
      resolvedBy: { kind: 'human', userId: user, deviceName: 'Test Chat (chat)' },
    });
    await client.close();
  });

  it('an approval is a decision with an optional reason, and shows the exact call', async () => {
    const user = newUser();
    const asked = elicitations();
    asked.answerWith(async () => ({
      action: 'accept',
      content: { decision: 'reject', reason: 'not those' },
    }));
    const { client } = await chatClient(nodes.balancer.url, await nodes.a.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    const action = { server: 'books', tool: 'delete', arguments: { ids: [1, 2, 3] } };
    const result = await client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Delete 3 invoices?', kind: 'approval', action } },
      CallToolResultSchema,
      CALL_OPTIONS,
    );
    expect(structured(result)).toMatchObject({
      status: 'answered',
      answer: 'reject',
      reason: 'not those',
      resolvedBy: { kind: 'human', userId: user, deviceName: 'Test Chat (chat)' },
    });
    const params = (await asked.next()).request.params as ElicitRequestFormParams;
    expect(params.message).toContain('Approve delete on books with:');
    expect(params.message).toContain('"ids"');
    expect(params.requestedSchema).toEqual({
      type: 'object',
      properties: {
        decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'] },
        reason: { type: 'string', title: 'Reason (optional)', maxLength: 1000 },
      },
      required: ['decision'],
    });
    await client.close();
  });

  it('cancel leaves the question to the other devices; a device answer then withdraws nothing more', async () => {
    const user = newUser();
    const device = await nodes.b.device(user);
    await device.synced;
    const asked = elicitations();
    asked.answerWith(async () => ({ action: 'cancel' }));
    const { client } = await chatClient(nodes.balancer.url, await nodes.a.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    const call = client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Dismissed in the chat?' } },
      CallToolResultSchema,
      CALL_OPTIONS,
    );
    const inquiry: DeviceInquiry = await device.nextNew();
    await asked.next();
    const takerLine = () =>
      [nodes.a, nodes.b]
        .flatMap((n) => n.lines)
        .find((l) => String(l.msg).includes('dismissed it in the chat'));
    await expect.poll(takerLine).toBeDefined();
    expect(
      await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'from the phone' }),
    ).toMatchObject({ ok: true });
    expect(structured(await call)).toMatchObject({
      status: 'answered',
      answer: 'from the phone',
      resolvedBy: { deviceName: 'Phone' },
    });
    await client.close();
  });

  it("another device answering first withdraws the chat's question (notifications/cancelled)", async () => {
    const user = newUser();
    const device = await nodes.a.device(user);
    await device.synced;
    const asked = elicitations();
    // The person never answers in the chat: the handler waits until the server withdraws it.
    asked.answerWith(async (_request, signal) => {
      await aborted(signal);
      return { action: 'cancel' };
    });
    const { client } = await chatClient(nodes.balancer.url, await nodes.a.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    const call = client.callTool(
      { name: 'get_inquiry', arguments: { inquiryId: 'x' } },
      CallToolResultSchema,
    );
    expect(structured(await call)).toMatchObject({ status: 'not_found' });
    const held = client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Who answers first?' } },
      CallToolResultSchema,
      CALL_OPTIONS,
    );
    const inquiry = await device.nextNew();
    const { signal } = await asked.next();
    expect(
      await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'the phone' }),
    ).toMatchObject({ ok: true });
    expect(await aborted(signal)).toMatch(/ended \(answered\) elsewhere/);
    expect(structured(await held)).toMatchObject({ status: 'answered', resolvedBy: { deviceName: 'Phone' } });
    await client.close();
  });

  it('asks on a held get_inquiry {waitMs} too', async () => {
    const user = newUser();
    const agentToken = await nodes.a.token(user, 'agent');
    const plain = await chatClient(nodes.balancer.url, agentToken, { capabilities: {} });
    const first = await plain.client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Later?', answerWithinMs: 600_000, timeoutMs: 1000 } },
      CallToolResultSchema,
    );
    const { inquiryId } = structured(first);
    expect(structured(first).status).toBe('pending');
    await plain.client.close();
    const asked = elicitations();
    asked.answerWith(async () => ({ action: 'accept', content: { answer: 'now' } }));
    const { client } = await chatClient(nodes.balancer.url, agentToken, { onElicit: asked.handler });
    const result = await client.callTool(
      { name: 'get_inquiry', arguments: { inquiryId, waitMs: 20_000 } },
      CallToolResultSchema,
      CALL_OPTIONS,
    );
    expect(structured(result)).toMatchObject({
      status: 'answered',
      answer: 'now',
      resolvedBy: { deviceName: 'Test Chat (chat)' },
    });
    await client.close();
  });

  it('askInChat: false keeps the question off the chat', async () => {
    const user = newUser();
    const device = await nodes.b.device(user);
    await device.synced;
    const asked = elicitations();
    const { client } = await chatClient(nodes.balancer.url, await nodes.a.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    const call = client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Not in the chat', askInChat: false } },
      CallToolResultSchema,
      CALL_OPTIONS,
    );
    const inquiry = await device.nextNew();
    expect(inquiry.askInChat).toBe(false);
    await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'phone only' });
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'phone only' });
    expect(asked.seen).toHaveLength(0);
    await client.close();
  });
});
