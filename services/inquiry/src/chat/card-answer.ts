import { REASON_CHARS } from '@hitl/mcp-http';
import { describeZodError, HitlError, ResponseSchema } from '@hitl/protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { CallContext } from '../mcp/call-context.js';
import { toolResult } from '../mcp/call-results.js';

/** `answer_inquiry`'s input: what the card sends. */
export const AnswerInquiryInputSchema = z
  .object({
    cardToken: z.string().min(1).max(2048).describe('The card token from the result this card shows.'),
    response: ResponseSchema.describe('The answer: text, or an object keyed by question id for a form.'),
    reason: z.string().max(REASON_CHARS).optional().describe("Why, in the person's words (optional)."),
  })
  .strict();

/** The device a card answers from. */
export const CARD_DEVICE = { deviceName: 'Inquiry card (chat)' };

function refused(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * `answer_inquiry`, the card's own tool (hidden from models): answers the inquiry its card token
 * names, as the token's user, through the first-answer-wins step every device uses. Refused without
 * a valid token of the caller's own user, and for an approval (the card never approves).
 */
export async function answerInquiry(ctx: CallContext, args: unknown): Promise<CallToolResult> {
  const parsed = AnswerInquiryInputSchema.safeParse(args ?? {});
  if (!parsed.success) return refused(`Not sent: ${describeZodError(parsed.error)}`);
  const { cardToken, response, reason } = parsed.data;
  const userId = ctx.claims.sub;
  const claims = ctx.cards.claimsOf(cardToken, ctx.clock.now());
  if (!claims || claims.userId !== userId)
    return refused(
      'Not sent: this card can no longer answer (its card token is not valid). Answer on your devices.',
    );
  const inquiry = await ctx.service.find(claims.inquiryId, userId);
  if (!inquiry) return refused('Not sent: the question is gone.');
  if (inquiry.kind === 'approval')
    return refused('Not sent: the card never approves. Open the question in the browser to decide.');
  try {
    const outcome = await ctx.service.settle(
      inquiry.inquiryId,
      userId,
      {
        type: 'answer',
        response,
        device: { ...CARD_DEVICE, deviceId: `card:${userId}` },
        ...(reason ? { reason } : {}),
      },
      Promise.resolve(inquiry),
    );
    if (outcome.kind === 'not_found') return refused('Not sent: the question is gone.');
    // The first answer wins: a second use of the card (or a late one) finds the question ended.
    if (outcome.kind === 'lost' || outcome.kind === 'already_voted')
      return refused(`Not sent: the question has already ended (${outcome.inquiry.status}).`);
    return toolResult(outcome.inquiry, ctx.clock.now(), ctx.maxWaitMs);
  } catch (error) {
    if (error instanceof HitlError && error.code !== 'unavailable' && error.code !== 'internal')
      return refused(`Not sent: ${error.message}`);
    throw error;
  }
}
