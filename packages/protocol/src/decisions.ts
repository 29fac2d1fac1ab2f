import { z } from 'zod';
import {
  ContextSchema,
  EscalationSchema,
  FallbackStrategySchema,
  InquiryKindSchema,
  InquiryStatusSchema,
  ResolvedByKindSchema,
  ResponseSchema,
  VoteSchema,
} from './inquiry.js';
import { LIMITS } from './limits.js';
import { UserIdSchema } from './tokens.js';

/** What ended the wait for a human. */
export const DecisionTriggerSchema = z.enum([
  'human',
  'device-timer',
  'service-timer',
  'refusal',
  'cancel',
  'proxy',
]);
export type DecisionTrigger = z.infer<typeof DecisionTriggerSchema>;

/**
 * One entry of the decision audit log: every human, timeout, refusal and machine outcome of an
 * inquiry (and every approval-proxy decision), with what the decider saw and said.
 */
export const DecisionRecordSchema = z.object({
  /** Opaque, time-ordered id (newest sorts last). */
  id: z.string(),
  /** Epoch ms when the outcome was written. */
  at: z.number(),
  inquiryId: z.string(),
  userId: z.string(),
  kind: InquiryKindSchema,
  question: z.string(),
  context: ContextSchema.optional(),
  /** The inquiry's final status. */
  outcome: InquiryStatusSchema,
  trigger: DecisionTriggerSchema,
  decidedBy: ResolvedByKindSchema,
  /** The fallback strategy that ran (absent for a human answer). */
  strategy: FallbackStrategySchema.optional(),
  /** The answer the agent received, if any. */
  output: ResponseSchema.optional(),
  rationale: z.string().optional(),
  /** Time the decider took, in ms: the fallback's run, or for a person the time they took to answer or decline. */
  latencyMs: z.number(),
  /** Time from question to outcome, in ms. */
  elapsedMs: z.number(),
  model: z.string().optional(),
  error: z.string().optional(),
  /** Who was asked: the audience's members, when the agent named an audience (and its team). */
  audience: z.array(z.string()).optional(),
  team: z.string().optional(),
  /** The escalation, when it happened before the end: whom it added and when. */
  escalation: EscalationSchema.optional(),
  /** A quorum approval's votes, in order. */
  votes: z.array(VoteSchema).optional(),
  /** The person's reason for a reject or a refusal. */
  reason: z.string().optional(),
  /** An approval approved with edits: the argument names the person changed. */
  changed: z.array(z.string()).optional(),
  /** A call that ran under a standing approval: its id (no one was asked). */
  standingId: z.string().optional(),
});
export type DecisionRecord = z.infer<typeof DecisionRecordSchema>;

export const ListDecisionsQuerySchema = z.object({
  strategy: FallbackStrategySchema.optional(),
  outcome: InquiryStatusSchema.optional(),
  user: UserIdSchema.optional(),
  /** Epoch ms or an ISO date: only entries at or after it. */
  since: z
    .union([z.coerce.number().int().min(0), z.iso.datetime().transform((d) => Date.parse(d))])
    .optional(),
  limit: z.coerce.number().int().min(1).max(LIMITS.pageSize).default(50),
  cursor: z.string().max(200).optional(),
});
export type ListDecisionsQuery = z.infer<typeof ListDecisionsQuerySchema>;

/** `GET /api/decisions/summary`: what the ops console charts. */
export interface DecisionSummary {
  since: number;
  bucketMs: number;
  /** One row per time bucket: counts by who/what ended the inquiry. */
  buckets: {
    start: number;
    human: number;
    deviceTimeout: number;
    serviceTimeout: number;
    refused: number;
    decisionAgent: number;
    cancelled: number;
  }[];
  /** Count per fallback strategy over the whole window. */
  byStrategy: Partial<Record<z.infer<typeof FallbackStrategySchema>, number>>;
  /** Human answer time percentiles over the window, in ms (null with no human answers). */
  answerMs: { p50: number | null; p90: number | null; p99: number | null; count: number };
}
