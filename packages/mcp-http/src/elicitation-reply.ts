import {
  APPROVAL_ANSWERS,
  describeZodError,
  type FormQuestion,
  type Inquiry,
  type InquiryResponse,
  LIMITS,
  responseProblem,
} from '@hitl/protocol';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { REASON_CHARS } from './elicitation-plan.js';

/*
 * What a chat client's response to a form elicitation means for its inquiry (pure): the reverse of
 * elicitation-plan.ts. Content is checked against the schema that was sent (named field on a
 * mismatch) and then against the inquiry itself, so nothing that does not fit reaches the store.
 */

export type ChatReply =
  | { kind: 'answer'; response: InquiryResponse; reason?: string }
  | { kind: 'refusal'; reason?: string }
  | { kind: 'nothing'; why: string }
  | { kind: 'unfit'; problem: string };

/** The reply a form elicitation's `result` holds for `inquiry`. */
export function replyOf(inquiry: Inquiry, result: unknown): ChatReply {
  const parsed = ElicitResultSchema.safeParse(result);
  if (!parsed.success) return { kind: 'unfit', problem: `result: ${describeZodError(parsed.error)}` };
  const { action, content } = parsed.data;
  if (action === 'cancel') return { kind: 'nothing', why: 'the person dismissed it in the chat' };
  if (action === 'decline') {
    // A decline carries no content as a rule; a reason, when a client sends one, travels with it.
    const reason = content?.reason;
    return typeof reason === 'string' && reason.trim() !== '' && reason.length <= REASON_CHARS
      ? { kind: 'refusal', reason }
      : { kind: 'refusal' };
  }
  const fitted = contentSchema(inquiry).safeParse(content ?? {});
  if (!fitted.success) return { kind: 'unfit', problem: `content: ${describeZodError(fitted.error)}` };
  const { response, reason } = responseOf(inquiry, fitted.data);
  const problem = responseProblem(inquiry, response);
  if (problem) return { kind: 'unfit', problem: `content: ${problem}` };
  return reason ? { kind: 'answer', response, reason } : { kind: 'answer', response };
}

type Content = Record<string, unknown>;

function contentSchema(inquiry: Inquiry): z.ZodType<Content> {
  if (inquiry.kind === 'approval') {
    return z
      .object({ decision: z.enum(APPROVAL_ANSWERS), reason: z.string().max(REASON_CHARS).optional() })
      .strict();
  }
  if (inquiry.questions) {
    const fields = Object.fromEntries(inquiry.questions.map((q) => [q.id, fieldSchema(q).optional()]));
    return z.object(fields).strict();
  }
  const answer = inquiry.options
    ? z.enum(inquiry.options as [string, ...string[]])
    : z.string().max(LIMITS.answerChars);
  return z.object({ answer }).strict();
}

function fieldSchema(q: FormQuestion): z.ZodType {
  switch (q.kind) {
    case 'text':
      return z.string().max(LIMITS.answerChars);
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'choice':
      return z.string();
    case 'multi':
      return z.array(z.string()).max(LIMITS.options);
  }
}

function responseOf(inquiry: Inquiry, content: Content): { response: InquiryResponse; reason?: string } {
  if (inquiry.kind === 'approval') {
    const reason =
      typeof content.reason === 'string' && content.reason.trim() !== '' ? content.reason : undefined;
    return { response: content.decision as string, ...(reason ? { reason } : {}) };
  }
  if (inquiry.questions) return { response: content as Record<string, string | number | boolean | string[]> };
  return { response: content.answer as string };
}
