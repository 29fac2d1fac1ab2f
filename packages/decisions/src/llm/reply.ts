import { describeZodError, ResponseSchema } from '@hitl/protocol';
import { z } from 'zod';
import type { DecisionInquiry, Proposal } from '../types.js';

/** The JSON a model must reply with. `confidence` is judged by the gate, not here. */
export const ModelReplySchema = z.object({
  decision: z.enum(['answer', 'approve', 'reject', 'ask_again']),
  answer: ResponseSchema.optional(),
  rationale: z.string().min(1).max(2000),
  confidence: z.unknown().optional(),
});
export type ModelReply = z.infer<typeof ModelReplySchema>;

export type ParsedReply = { ok: true; reply: ModelReply } | { ok: false; error: string };

/** The model's text as a validated reply; a ```json fence around it is tolerated. */
export function parseModelReply(text: string): ParsedReply {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, error: `the model reply is not JSON: ${JSON.stringify(text.slice(0, 120))}` };
  }
  const parsed = ModelReplySchema.safeParse(json);
  if (!parsed.success)
    return { ok: false, error: `the model reply is invalid: ${describeZodError(parsed.error)}` };
  return { ok: true, reply: parsed.data };
}

/**
 * What a valid reply proposes for this inquiry, or an error when the decision does not suit it
 * (e.g. "approve" on a question, "answer" without an answer).
 */
export function replyProposal(
  inquiry: DecisionInquiry,
  reply: ModelReply,
): { ok: true; proposal: Proposal } | { ok: false; error: string } {
  const base = { rationale: reply.rationale, confidence: reply.confidence };
  const approval = inquiry.kind === 'approval';
  switch (reply.decision) {
    case 'ask_again':
      return { ok: true, proposal: { ...base, rationale: `A new inquiry is needed: ${reply.rationale}` } };
    case 'approve':
    case 'reject':
      if (!approval) return { ok: false, error: `the model decided "${reply.decision}" on a question` };
      return { ok: true, proposal: { ...base, answer: reply.decision } };
    case 'answer':
      if (approval)
        return { ok: false, error: 'the model answered an approval with text instead of approve/reject' };
      if (reply.answer === undefined) return { ok: false, error: 'the model decided "answer" but gave none' };
      return { ok: true, proposal: { ...base, answer: reply.answer } };
  }
}
