import type { InquiryResult } from '@hitl/protocol';
import { sleep } from '@hitl/store/testing';
import { CallToolResultSchema, CancelledNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { chatClient, elicitations, useChatPairBehindBalancer } from './chat-harness.js';
import { newUser } from './decision-helpers.js';

const ROUNDS = 12;

// The chat and a phone answer one question at the same moment, on different nodes of one Redis:
// the store's one atomic step picks exactly one winner, and when the phone wins the chat is told
// to withdraw its question (notifications/cancelled naming the elicitation's id).
describe('the chat and a socket.io device answering at once', () => {
  const nodes = useChatPairBehindBalancer();

  it(`has exactly one winner in each of ${ROUNDS} rounds, and the chat hears when it lost`, async () => {
    const user = newUser();
    const device = await nodes.b.device(user);
    await device.synced;
    const asked = elicitations();
    let go: () => void = () => undefined;
    asked.answerWith(async (request) => {
      await new Promise<void>((resolve) => {
        go = resolve;
      });
      return { action: 'accept', content: { answer: `chat ${String(request.params.message).slice(-2)}` } };
    });
    const { client } = await chatClient(nodes.balancer.url, await nodes.a.token(user, 'agent'), {
      onElicit: asked.handler,
    });
    // What the server withdrew (replacing the SDK's own handler, which only aborts running handlers).
    const withdrawn: unknown[] = [];
    client.setNotificationHandler(CancelledNotificationSchema, (n) => {
      withdrawn.push(n.params.requestId);
    });
    const winners: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const question = `Round ${String(round).padStart(2, '0')}`;
      const call = client.callTool({ name: 'send_inquiry', arguments: { question } }, CallToolResultSchema, {
        timeout: 30_000,
      });
      const inquiry = await device.nextNew();
      const { id } = await asked.next(round);
      // Both at once: the chat's response POST and the phone's socket event, the phone held back
      // a little more each round so either may win (time itself is under test: race offsets).
      go();
      await sleep((round % 6) * 4); // time itself is under test: the race offset
      const ack = await device.emit<{ ok: boolean; error?: { code: string } }>('inquiry:answer', {
        inquiryId: inquiry.inquiryId,
        response: 'phone',
      });
      const result = (await call).structuredContent as InquiryResult;
      const winner = result.resolvedBy?.deviceName ?? '?';
      winners.push(winner);
      expect(result.status).toBe('answered');
      if (winner === 'Phone') {
        expect(ack.ok).toBe(true);
        expect(result.answer).toBe('phone');
      } else {
        expect(winner).toBe('Test Chat (chat)');
        expect(ack).toMatchObject({ ok: false, error: { code: 'already_resolved' } });
        expect(result.answer).toBe(`chat ${String(round).padStart(2, '0')}`);
      }
      await device.nextResolved();
      if (winner === 'Phone') await expect.poll(() => withdrawn).toContain(id);
    }
    // Every round the phone won withdrew the chat's question; none the chat won did.
    expect(withdrawn).toHaveLength(winners.filter((w) => w === 'Phone').length);
    await client.close();
  });
});
