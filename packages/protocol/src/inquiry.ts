import { z } from 'zod';
import { EditableSchema, ReasonSchema } from './approval-shape.js';
import { FieldValueSchema, FormQuestionsSchema, OptionsSchema } from './form.js';
import { LIMITS, utf8Bytes } from './limits.js';

export const FormatSchema = z.enum(['text', 'markdown', 'form']);
export type Format = z.infer<typeof FormatSchema>;

export const InquiryKindSchema = z.enum(['question', 'approval']);
export type InquiryKind = z.infer<typeof InquiryKindSchema>;

/** The four ways an inquiry ends. */
export const TerminalStatusSchema = z.enum(['answered', 'refused', 'timed_out', 'cancelled']);
export type TerminalStatus = z.infer<typeof TerminalStatusSchema>;

export const InquiryStatusSchema = z.enum(['pending', ...TerminalStatusSchema.options]);
export type InquiryStatus = z.infer<typeof InquiryStatusSchema>;

export const FallbackStrategySchema = z.enum([
  'fail_closed',
  'preset_text',
  'default_answer',
  'random',
  'approve',
  'agent',
]);
export type FallbackStrategy = z.infer<typeof FallbackStrategySchema>;

export const FallbackSchema = z
  .object({ onTimeout: FallbackStrategySchema.optional(), onRefusal: FallbackStrategySchema.optional() })
  .strict();
export type Fallback = z.infer<typeof FallbackSchema>;

/**
 * Any JSON object. Declared `additionalProperties: true` in JSON Schema: the default conversion writes an
 * empty schema (`{}`) for the values, which accepts anything while constraining nothing, and which
 * schema-portability checks (the MCP Inspector's) flag as untyped.
 */
const FreeFormObjectSchema = z.record(z.string(), z.unknown()).meta({ additionalProperties: true });

/** The exact call an approval gates, shown to the human verbatim. */
export const ActionSchema = z.object({
  server: z.string().min(1).max(200),
  tool: z.string().min(1).max(200),
  arguments: FreeFormObjectSchema.default({}),
  /**
   * The JSON Schema of the tool's input (the approval proxy passes the backend tool's): devices build
   * the edit form from it, and the node checks edited arguments against it.
   */
  inputSchema: FreeFormObjectSchema.refine(
    (schema) => utf8Bytes(JSON.stringify(schema)) <= LIMITS.inputSchemaBytes,
    `inputSchema over ${LIMITS.inputSchemaBytes} bytes`,
  ).optional(),
});
export type Action = z.infer<typeof ActionSchema>;

/** A confidence is a finite number in 0..1; NaN, booleans and strings are invalid input. */
export const ConfidenceSchema = z.number().min(0).max(1);

/** What the decision agent sees: text, or a JSON object, at most 32 KB either way. */
export const ContextSchema = z
  .union([z.string(), FreeFormObjectSchema])
  .refine(
    (ctx) => utf8Bytes(typeof ctx === 'string' ? ctx : JSON.stringify(ctx)) <= LIMITS.contextBytes,
    `context over ${LIMITS.contextBytes} bytes`,
  );

/** A human's response: text for a single question, an object keyed by question id for a form. */
export const ResponseSchema = z.union([
  z.string().max(LIMITS.answerChars),
  z.record(z.string(), FieldValueSchema),
]);
export type InquiryResponse = z.infer<typeof ResponseSchema>;

export const ResolvedByKindSchema = z.enum([
  'human',
  'device-timer',
  'service-timer',
  'agent',
  'decision-agent',
  /** An operator cancelled it (`POST /api/inquiries/:id/cancel`); `rationale` names who. */
  'ops',
]);
export type ResolvedByKind = z.infer<typeof ResolvedByKindSchema>;

export const ResolvedBySchema = z.object({
  kind: ResolvedByKindSchema,
  /** The person who answered or refused (an audience member), when a human did. */
  userId: z.string().optional(),
  deviceId: z.string().optional(),
  deviceName: z.string().optional(),
  strategy: FallbackStrategySchema.optional(),
  rationale: z.string().optional(),
  trigger: z.enum(['device-timer', 'service-timer', 'refusal']).optional(),
});
export type ResolvedBy = z.infer<typeof ResolvedBySchema>;

/** Server-time deadlines (epoch ms) of the tiers. */
export const DeadlinesSchema = z.object({
  deviceAt: z.number(),
  serviceAt: z.number(),
  clientAt: z.number(),
  /**
   * The end of an answer window longer than the hold (`answerWithinMs`): devices count down to it,
   * no device timer fires, and the service times the inquiry out then. Absent: the tiers rule.
   */
  answerBy: z.number().optional(),
});
export type Deadlines = z.infer<typeof DeadlinesSchema>;

/** One person's vote on a quorum approval: kept, shown, returned in `structuredContent.votes`. */
export const VoteSchema = z.object({
  userId: z.string(),
  deviceId: z.string().optional(),
  deviceName: z.string().optional(),
  vote: z.enum(['approve', 'reject']),
  at: z.number(),
});
export type Vote = z.infer<typeof VoteSchema>;

/**
 * An escalation planned when the inquiry was created (the team's `escalateTo` after its
 * `escalateAfterMs`): at `at` (epoch ms), still unanswered, `users` are added to the audience;
 * `escalatedAt` is set once that happened.
 */
export const EscalationSchema = z.object({
  at: z.number(),
  users: z.array(z.string()).min(1).max(LIMITS.audienceUsers),
  /** The team the users came from, when the escalation names one. */
  team: z.string().optional(),
  escalatedAt: z.number().optional(),
});
export type Escalation = z.infer<typeof EscalationSchema>;

/** Who asked: the agent token's subject and name. */
export const AskerSchema = z.object({ name: z.string().optional(), tokenSubject: z.string() });
export type Asker = z.infer<typeof AskerSchema>;

/** What a person added to their answer or refusal, kept with the resolution. */
const resolutionExtrasShape = {
  /** The person's reason for a reject or a refusal. */
  reason: ReasonSchema.optional(),
  /** An approval approved with edits: the arguments as approved (absent: as asked). */
  arguments: FreeFormObjectSchema.optional(),
  /** An approval approved with edits: the top-level names the person changed. */
  changed: z.array(z.string()).optional(),
};

/** What the asker decided about the question; immutable once created. */
export const InquiryContentSchema = z.object({
  question: z.string().min(1).max(LIMITS.questionChars),
  questions: FormQuestionsSchema.optional(),
  format: FormatSchema,
  defaultAnswer: ResponseSchema.optional(),
  options: OptionsSchema.optional(),
  context: ContextSchema.optional(),
  kind: InquiryKindSchema,
  action: ActionSchema.optional(),
  critical: z.boolean(),
  confidence: ConfidenceSchema.optional(),
  fallback: FallbackSchema.optional(),
  /** Approvals only: how many distinct people must approve; one reject vetoes. */
  quorum: z.number().int().min(2).max(LIMITS.quorumMax).optional(),
  /** False: never put to the person in the agent's own chat (MCP elicitation); absent means true. */
  askInChat: z.boolean().optional(),
  /** Approvals only: an approve counts only with a WebAuthn assertion from one of the approver's passkeys. */
  requirePasskey: z.boolean().optional(),
  /** Approvals only: which arguments the person may edit before approving. */
  editable: EditableSchema.optional(),
  /** Approvals only: false when the approval may not be allowed for a while (`allowFor`). */
  standing: z.boolean().optional(),
});
export type InquiryContent = z.infer<typeof InquiryContentSchema>;

/** An inquiry as stored: content, identity, deadlines and (once ended) its resolution. */
export const InquirySchema = InquiryContentSchema.extend({
  inquiryId: z.string(),
  /** The asker's user: the agent token's subject, who owns the MCP call and `get_inquiry`. */
  userId: z.string(),
  /**
   * The users the inquiry is addressed to (a team's members or a list of users), when the asker named
   * an audience; absent: the asker's own user alone. Every member sees and may answer it.
   */
  audience: z.array(z.string()).min(1).max(LIMITS.audienceUsers).optional(),
  /** The team the audience came from, when the asker named one. */
  team: z.string().optional(),
  /** The escalation planned for it (a team with `escalateTo`), and when it happened. */
  escalation: EscalationSchema.optional(),
  /** A quorum approval's votes so far, in the order they were cast. */
  votes: z
    .array(VoteSchema)
    .max(LIMITS.audienceUsers * 2)
    .optional(),
  asker: AskerSchema,
  idempotencyKey: z.string().optional(),
  createdAt: z.number(),
  deadlines: DeadlinesSchema,
  suggestedAnswer: ResponseSchema.optional(),
  status: InquiryStatusSchema,
  answer: ResponseSchema.optional(),
  resolvedBy: ResolvedBySchema.optional(),
  resolvedAt: z.number().optional(),
  ...resolutionExtrasShape,
});
export type Inquiry = z.infer<typeof InquirySchema>;

/** What decides who an inquiry is addressed to. */
export type AddressedFields = Pick<Inquiry, 'userId' | 'audience' | 'escalation'>;

/**
 * The users an inquiry is addressed to: its audience (or else the asker's own user), and once it
 * escalated, the escalation's users too (repeats removed).
 */
export function audienceOf(inquiry: AddressedFields): string[] {
  const base = inquiry.audience ?? [inquiry.userId];
  const { escalation } = inquiry;
  if (escalation?.escalatedAt === undefined) return base;
  return [...new Set([...base, ...escalation.users])];
}

/**
 * The asker's user and every user the inquiry is addressed to (repeats removed): whom a pending
 * inquiry counts against in the per-user pending cap.
 */
export function involvedUsers(inquiry: AddressedFields): Set<string> {
  return new Set([inquiry.userId, ...audienceOf(inquiry)]);
}

/** True when `userId` is one of the users the inquiry is addressed to. */
export function isAddressedTo(inquiry: AddressedFields, userId: string): boolean {
  return audienceOf(inquiry).includes(userId);
}

/** A quorum approval's approvals so far and how many it needs (undefined for any other inquiry). */
export function quorumProgress(
  inquiry: Pick<Inquiry, 'quorum' | 'votes'>,
): { approvals: number; needed: number } | undefined {
  if (inquiry.quorum === undefined) return undefined;
  const approvals = (inquiry.votes ?? []).filter((vote) => vote.vote === 'approve').length;
  return { approvals, needed: inquiry.quorum };
}

/** What ends an inquiry: written once, by whoever wins. */
export const ResolutionSchema = z.object({
  status: TerminalStatusSchema,
  answer: ResponseSchema.optional(),
  resolvedBy: ResolvedBySchema,
  resolvedAt: z.number(),
  ...resolutionExtrasShape,
});
export type Resolution = z.infer<typeof ResolutionSchema>;
