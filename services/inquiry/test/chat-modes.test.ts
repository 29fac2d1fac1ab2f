import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InquiryResult } from '@hitl/protocol';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitationCompleteNotificationSchema,
  type ElicitRequestURLParams,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aborted, type ChatNode, chatClient, elicitations, startChatNode } from './chat-harness.js';
import { newUser } from './decision-helpers.js';

const HOLD = { timeout: 30_000 };

describe('when the chat asks, and how', () => {
  let node: ChatNode;
  let off: ChatNode;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hitl-chat-dir-'));
    const file = join(dir, 'directory.json');
    // "lead" may ask the team but is not in it; "ann" and "bob" are its members.
    await writeFile(
      file,
      JSON.stringify({ users: {}, teams: { ops: { members: ['ann', 'bob'], askers: ['lead', 'ann'] } } }),
    );
    node = await startChatNode({ HITL_DIRECTORY_FILE: file, HITL_PUBLIC_URL: 'https://hitl.example.test/' });
    off = await startChatNode({ HITL_ELICITATION: 'off' });
  });
  afterAll(async () => {
    await node?.close();
    await off?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a critical approval goes to the web page by URL (never a form), and the chat hears when it ends', async () => {
    const user = newUser();
    const device = await node.device(user);
    await device.synced;
    const asked = elicitations();
    asked.answerWith(async () => ({ action: 'accept' }));
    const { client } = await chatClient(node.url, await node.token(user, 'agent'), {
      capabilities: { elicitation: { form: {}, url: {} } },
      onElicit: asked.handler,
    });
    const completed: string[] = [];
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
      completed.push(n.params.elicitationId);
    });
    const call = client.callTool(
      {
        name: 'send_inquiry',
        arguments: {
          question: 'Wire 10,000 EUR?',
          kind: 'approval',
          critical: true,
          action: { server: 'bank', tool: 'wire', arguments: { amount: 10_000 } },
        },
      },
      CallToolResultSchema,
      HOLD,
    );
    const inquiry = await device.nextNew();
    const { request, id } = await asked.next();
    const params = request.params as ElicitRequestURLParams;
    expect(params.mode).toBe('url');
    expect(params.url).toBe(`https://hitl.example.test/i/${inquiry.inquiryId}`);
    expect(params.elicitationId).toBe(id);
    expect(params.message).toContain('Wire 10,000 EUR?');
    // The chat's "accept" of a URL elicitation only means the page was opened: nothing is decided.
    await expect
      .poll(() => node.lines.some((l) => String(l.msg).includes('URL elicitation was acknowledged')))
      .toBe(true);
    expect(
      await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'approve' }),
    ).toMatchObject({ ok: true });
    expect((await call).structuredContent).toMatchObject({
      status: 'answered',
      answer: 'approve',
      resolvedBy: { deviceName: 'Phone' },
    });
    await expect.poll(() => completed).toEqual([id]);
    await client.close();
  });

  it('a critical approval is not asked at all in a chat that takes forms only', async () => {
    const user = newUser();
    const device = await node.device(user);
    await device.synced;
    const asked = elicitations();
    const { client } = await chatClient(node.url, await node.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    const call = client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Drop the table?', kind: 'approval', critical: true } },
      CallToolResultSchema,
      HOLD,
    );
    const inquiry = await device.nextNew();
    await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'reject' });
    expect((await call).structuredContent).toMatchObject({ status: 'answered', answer: 'reject' });
    expect(asked.seen).toEqual([]);
    await client.close();
  });

  it("a team's question from an asker outside the team stays off the asker's chat; a member's chat is asked", async () => {
    const ann = await node.device('ann');
    await ann.synced;
    const lead = elicitations();
    const leadChat = await chatClient(node.url, await node.token('lead', 'agent'), {
      onElicit: lead.handler,
    });
    const call = leadChat.client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Deploy now?', audience: { team: 'ops' } } },
      CallToolResultSchema,
      HOLD,
    );
    const inquiry = await ann.nextNew();
    await ann.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'yes' });
    expect((await call).structuredContent).toMatchObject({
      status: 'answered',
      resolvedBy: { userId: 'ann' },
    });
    expect(lead.seen).toEqual([]);
    await leadChat.client.close();

    const member = elicitations();
    member.answerWith(async () => ({ action: 'accept', content: { answer: 'from my chat' } }));
    const annChat = await chatClient(node.url, await node.token('ann', 'agent'), {
      onElicit: member.handler,
    });
    const asked = await annChat.client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Roll back?', audience: { team: 'ops' } } },
      CallToolResultSchema,
      HOLD,
    );
    expect(asked.structuredContent).toMatchObject({
      status: 'answered',
      answer: 'from my chat',
      resolvedBy: { userId: 'ann' },
    });
    await annChat.client.close();
  });

  it('HITL_ELICITATION=off: the node keeps sessions but never asks in the chat', async () => {
    const user = newUser();
    const device = await off.device(user);
    await device.synced;
    const asked = elicitations();
    const { client, transport } = await chatClient(off.url, await off.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    expect(transport.sessionId).toBeDefined();
    const call = client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Quietly?' } },
      CallToolResultSchema,
      HOLD,
    );
    const inquiry = await device.nextNew();
    await device.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'yes' });
    expect((await call).structuredContent).toMatchObject({ status: 'answered' });
    expect(asked.seen).toEqual([]);
    await client.close();
  });

  it('a held tasks/result asks in the chat; the task completes with the chat answer', async () => {
    const user = newUser();
    const asked = elicitations();
    asked.answerWith(async () => ({ action: 'accept', content: { answer: 'via the task' } }));
    const { client } = await chatClient(node.url, await node.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'send_inquiry', arguments: { question: 'As a task?' } } },
      CreateTaskResultSchema,
      { task: { ttl: 600_000 } },
    );
    // Creating the task asks nothing; waiting on its result in the chat does.
    expect(asked.seen).toEqual([]);
    const waited = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, HOLD);
    const result = waited.structuredContent as InquiryResult;
    expect(result).toMatchObject({
      status: 'answered',
      answer: 'via the task',
      resolvedBy: { deviceName: 'Test Chat (chat)' },
    });
    expect(asked.seen).toHaveLength(1);
    await client.close();
  });

  it('the hold ending pending withdraws the question from the chat; it stays open for the devices', async () => {
    const user = newUser();
    const asked = elicitations();
    asked.answerWith(async (_request, signal) => {
      await aborted(signal);
      return { action: 'cancel' };
    });
    const { client } = await chatClient(node.url, await node.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    const result = await client.callTool(
      {
        name: 'send_inquiry',
        arguments: { question: 'Later is fine', answerWithinMs: 600_000, timeoutMs: 1000 },
      },
      CallToolResultSchema,
      HOLD,
    );
    expect(result.structuredContent).toMatchObject({ status: 'pending' });
    const { signal } = await asked.next();
    expect(await aborted(signal)).toMatch(/stopped waiting/);
    await client.close();
  });

  it("a quorum approval counts the chat's answer as that person's vote, once", async () => {
    const ann = await node.device('ann');
    const bob = await node.device('bob');
    await Promise.all([ann.synced, bob.synced]);
    const asked = elicitations();
    asked.answerWith(async () => ({ action: 'accept', content: { decision: 'approve' } }));
    const { client } = await chatClient(node.url, await node.token('ann', 'agent'), {
      onElicit: asked.handler,
    });
    const call = client.callTool(
      {
        name: 'send_inquiry',
        arguments: { question: 'Ship the release?', kind: 'approval', quorum: 2, audience: { team: 'ops' } },
      },
      CallToolResultSchema,
      HOLD,
    );
    const inquiry = await bob.nextNew();
    await bob.nextUpdated();
    // Ann voted in the chat: her phone may not vote again.
    expect(
      await ann.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'approve' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'already_voted' },
    });
    expect(
      await bob.emit('inquiry:answer', { inquiryId: inquiry.inquiryId, response: 'approve' }),
    ).toMatchObject({ ok: true });
    const result = (await call).structuredContent as InquiryResult;
    expect(result).toMatchObject({ status: 'answered', answer: 'approve' });
    expect(result.votes?.map((v) => [v.userId, v.deviceName])).toEqual([
      ['ann', 'Test Chat (chat)'],
      ['bob', 'Phone'],
    ]);
    await client.close();
  });

  it('a call the SDK path serves (a one-message batch) asks the same way, on its own stream', async () => {
    const user = newUser();
    const token = await node.token(user, 'agent');
    const { transport, client } = await chatClient(node.url, token);
    const res = await fetch(`${node.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId as string,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify([
        {
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'send_inquiry', arguments: { question: 'Batch?' } },
        },
      ]),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('elicitation/create')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('"method":"elicitation/create"');
    expect(text).toContain('"id":"hitl-e1.');
    await reader.cancel();
    await client.close();
  });
});
