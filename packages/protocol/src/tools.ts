import { z } from 'zod';
import { EditableSchema } from './approval-shape.js';
import { FormQuestionsSchema, fieldProblem, OptionsSchema, type QuestionKind } from './form.js';
import {
  ActionSchema,
  ConfidenceSchema,
  ContextSchema,
  FallbackSchema,
  FormatSchema,
  InquiryKindSchema,
  InquiryStatusSchema,
  ResolvedBySchema,
  ResponseSchema,
  VoteSchema,
} from './inquiry.js';
import { LIMITS } from './limits.js';
import { MIN_ANSWER_WINDOW_MS, MIN_TIER_MS } from './tiers.js';

/**
 * Whom an inquiry is addressed to: one team of the directory, or a list of users (at most
 * {@link LIMITS.audienceUsers}). One object with two optional properties (not a union), so the input
 * schema stays a plain object for every model vendor.
 */
export const AudienceSchema = z
  .object({
    team: z.string().min(1).max(200).optional().describe('A team of the directory.'),
    users: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(LIMITS.audienceUsers)
      .optional()
      .describe(`User ids of the directory (at most ${LIMITS.audienceUsers}).`),
  })
  .strict()
  .refine((a) => (a.team === undefined) !== (a.users === undefined), {
    message: 'give exactly one of team or users',
  });
export type Audience = z.infer<typeof AudienceSchema>;

/** Raw shape of `send_inquiry`'s input: every property described, plain JSON Schema once converted. */
export const sendInquiryShape = {
  question: z
    .string()
    .min(1, 'question must not be empty')
    .max(LIMITS.questionChars, `question over ${LIMITS.questionChars} characters`)
    .describe('What you want to ask the person, in plain words.'),
  questions: FormQuestionsSchema.optional().describe(
    'Several questions at once, as a form: [{id, prompt, kind: text|choice|multi|number|boolean, options?, default?, required?}].',
  ),
  format: FormatSchema.optional().describe('How to show the question: text (default), markdown, or form.'),
  defaultAnswer: ResponseSchema.optional().describe(
    'An answer to prefill; the person can submit or edit it. Text, or an object keyed by question id for a form.',
  ),
  options: OptionsSchema.optional().describe('Choices the person picks one of (single question).'),
  context: ContextSchema.optional().describe(
    'Background the person and the fallback decision see (text or object, at most 32 KB).',
  ),
  kind: InquiryKindSchema.optional().describe(
    'question (default), or approval to ask permission for an action.',
  ),
  action: ActionSchema.optional().describe('For approvals: {server, tool, arguments} of the exact call.'),
  critical: z
    .boolean()
    .optional()
    .describe('True when a wrong guess would be costly; silence never approves it.'),
  confidence: ConfidenceSchema.optional().describe('How sure you are without asking, a number from 0 to 1.'),
  fallback: FallbackSchema.optional().describe(
    'What to do if nobody answers (onTimeout) or the person declines (onRefusal): fail_closed, preset_text, default_answer, random, approve, agent.',
  ),
  timeoutMs: z
    .number()
    .int()
    .min(MIN_TIER_MS)
    .optional()
    .describe('How long to wait for the person, in ms (capped by the service timeout).'),
  answerWithinMs: z
    .number()
    .int()
    .min(MIN_ANSWER_WINDOW_MS)
    .optional()
    .describe(
      'How long the person may take to answer, in ms (up to 7 days unless the service sets another cap). ' +
        'When longer than the wait, the reply comes back "pending" with the inquiryId; collect the answer ' +
        'later with get_inquiry.',
    ),
  idempotencyKey: z
    .string()
    .min(1)
    .max(LIMITS.idempotencyKeyChars)
    .optional()
    .describe('Your own key for this question; asking again with it returns the same inquiry.'),
  audience: AudienceSchema.optional().describe(
    'Who is asked: {team: "<team id>"} or {users: ["<user id>", ...]}; absent: the person you act for. ' +
      'Anyone in the audience may answer; the first answer counts.',
  ),
  quorum: z
    .number()
    .int()
    .min(2)
    .max(LIMITS.quorumMax)
    .optional()
    .describe(
      `Approvals only: how many different people of the audience must approve (2..${LIMITS.quorumMax}); ` +
        'one reject decides it rejected. Until then nothing is approved.',
    ),
  askInChat: z
    .boolean()
    .optional()
    .describe(
      'Whether the person may also answer right here in this chat, when this client can show a form (default true).',
    ),
  requirePasskey: z
    .boolean()
    .optional()
    .describe(
      'Approvals only: the person must approve with a passkey on their device (proof that they approved these exact arguments). Nothing else approves it.',
    ),
  editable: EditableSchema.optional(),
  standing: z
    .boolean()
    .optional()
    .describe('Approvals only: false when the person may not allow this action for a while.'),
};

export const SendInquiryInputSchema = z.object(sendInquiryShape).superRefine((input, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (input.questions && input.options) issue('options', 'give options per question inside questions');
  if (input.format === 'form' && !input.questions) issue('questions', 'format "form" needs questions');
  if (input.kind === 'approval' && (input.questions || input.options)) {
    issue('kind', 'an approval is answered approve or reject; it takes no questions or options');
  }
  if (input.action && input.kind !== 'approval') issue('action', 'action is only for kind "approval"');
  if (input.quorum !== undefined && input.kind !== 'approval') {
    issue('quorum', 'quorum is only for kind "approval"');
  }
  if (input.requirePasskey && input.kind !== 'approval') {
    issue('requirePasskey', 'requirePasskey is only for kind "approval"');
  }
  if (input.editable !== undefined && !input.action) {
    issue('editable', 'editable needs kind "approval" and the action whose arguments may change');
  }
  if (input.standing !== undefined && input.kind !== 'approval') {
    issue('standing', 'standing is only for kind "approval"');
  }
  if (input.defaultAnswer !== undefined) {
    const problem = prefillProblem(
      { questions: input.questions, options: input.options, kind: input.kind ?? 'question' },
      input.defaultAnswer,
    );
    if (problem) issue('defaultAnswer', problem);
  }
});
export type SendInquiryInput = z.infer<typeof SendInquiryInputSchema>;

export const getInquiryShape = {
  inquiryId: z.string().min(1).max(100).optional().describe('The id returned when the question was asked.'),
  idempotencyKey: z
    .string()
    .min(1)
    .max(LIMITS.idempotencyKeyChars)
    .optional()
    .describe('The key you asked with, if you gave one.'),
  waitMs: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Wait up to this many ms for an answer before returning (bounded by the service).'),
};

export const GetInquiryInputSchema = z
  .object(getInquiryShape)
  .refine((i) => i.inquiryId !== undefined || i.idempotencyKey !== undefined, {
    message: 'give inquiryId or idempotencyKey',
    path: ['inquiryId'],
  });
export type GetInquiryInput = z.infer<typeof GetInquiryInputSchema>;

export const ToolStatusSchema = z.enum([...InquiryStatusSchema.options, 'not_found']);
export type ToolStatus = z.infer<typeof ToolStatusSchema>;

/** `structuredContent` of both tools. */
export const inquiryResultShape = {
  // A union whose string branch carries a description converts to `anyOf: [{type: string}, {type:
  // null}]`; `.nullable()` would give `type: ["string", "null"]`, which single-type dialects (Gemini's
  // function declarations) reject and the MCP Inspector's portability check warns about.
  inquiryId: z
    .union([z.string().describe('The inquiry id.'), z.null()])
    .describe('The inquiry, or null when none was found.'),
  status: ToolStatusSchema,
  answer: ResponseSchema.optional().describe('Exactly what the person sent, when someone answered.'),
  resolvedBy: ResolvedBySchema.optional(),
  votes: z
    .array(VoteSchema)
    .optional()
    .describe('A quorum approval: every vote so far ({userId, deviceName, vote, at}), in order.'),
  elapsedMs: z.number().describe('Time since the question was asked, in ms.'),
  reason: z.string().optional().describe("The person's reason, when they rejected or declined with one."),
  arguments: z
    .record(z.string(), z.unknown())
    .meta({ additionalProperties: true })
    .optional()
    .describe('An approved action: the arguments as approved (the person may have edited them).'),
  changed: z
    .array(z.string())
    .optional()
    .describe('An approved action: the argument names the person edited (empty: none).'),
};
export const InquiryResultSchema = z.object(inquiryResultShape);
export type InquiryResult = z.infer<typeof InquiryResultSchema>;

/** The parts of an inquiry a response is checked against. */
export interface ResponseShape {
  questions?: { id: string; kind: QuestionKind; options?: string[]; required?: boolean }[];
  options?: string[];
  kind: 'question' | 'approval';
}

export const APPROVAL_ANSWERS = ['approve', 'reject'] as const;

/** A form field left empty: not sent, blank text, or no option picked (what a UI sends for "nothing"). */
function isBlank(value: unknown): boolean {
  if (typeof value === 'string') return value.trim() === '';
  return value === undefined || (Array.isArray(value) && value.length === 0);
}

/** Why `response` does not fit the inquiry, or `null` when it does. */
export function responseProblem(shape: ResponseShape, response: unknown): string | null {
  if (shape.kind === 'approval') {
    return response === 'approve' || response === 'reject'
      ? null
      : 'an approval is answered "approve" or "reject"';
  }
  if (shape.questions) {
    if (typeof response !== 'object' || response === null || Array.isArray(response)) {
      return 'a form is answered with an object keyed by question id';
    }
    const values = response as Record<string, unknown>;
    const known = new Set(shape.questions.map((q) => q.id));
    const unknownId = Object.keys(values).find((id) => !known.has(id));
    if (unknownId !== undefined) return `"${unknownId}" is not a question of this form`;
    for (const q of shape.questions) {
      const value = values[q.id];
      if (isBlank(value)) {
        if (q.required) return `${q.id}: an answer is required`;
        continue;
      }
      const problem = fieldProblem(q, value);
      if (problem) return `${q.id}: ${problem}`;
    }
    return null;
  }
  if (typeof response !== 'string') return 'expected a text answer';
  if (response.trim() === '') return 'the answer is empty';
  if (response.length > LIMITS.answerChars) return `answer over ${LIMITS.answerChars} characters`;
  if (shape.options && !shape.options.includes(response)) return `"${response}" is not one of the options`;
  return null;
}

/**
 * Why `prefill` (an asker's `defaultAnswer` or a suggested answer) does not fit the inquiry, or
 * `null` when it does: the rules of {@link responseProblem}, except that a prefill may leave required
 * questions empty for the person to fill in.
 */
export function prefillProblem(shape: ResponseShape, prefill: unknown): string | null {
  const questions = shape.questions?.map((q) => ({ ...q, required: false }));
  return responseProblem({ ...shape, questions }, prefill);
}
