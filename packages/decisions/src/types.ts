import {
  type FallbackStrategy,
  FallbackStrategySchema,
  type Inquiry,
  type InquiryResponse,
  InquirySchema,
  ResolvedBySchema,
  ResponseSchema,
} from '@hitl/protocol';
import { z } from 'zod';

/** What ended the wait before a machine decides: a timer or the person's refusal. */
export const FallbackTriggerSchema = ResolvedBySchema.shape.trigger.unwrap();
export type FallbackTrigger = z.infer<typeof FallbackTriggerSchema>;

/** Longest rationale kept, in characters (it travels in the tool result and the audit log). */
export const RATIONALE_CHARS = 1000;

/** Asks the decider to run one strategy for an inquiry nobody answered (or the person refused). */
export const DecisionRequestSchema = z.object({
  inquiry: InquirySchema,
  trigger: FallbackTriggerSchema,
  strategy: FallbackStrategySchema,
  /** Time left to decide, in ms; past it the decider fails closed. */
  budgetMs: z.number().int().min(0),
  /** Seed of the `random` strategy; the inquiry id when absent, so every node picks alike. */
  seed: z.string().max(200).optional(),
});
export type DecisionRequest = z.infer<typeof DecisionRequestSchema>;

/** What the decider decided, with what it needs for the tool result and the audit log. */
export const DecisionSchema = z.object({
  /** The strategy that produced the outcome: `fail_closed` whenever the requested one fell back. */
  strategy: FallbackStrategySchema,
  /** The strategy that was asked for. */
  requested: FallbackStrategySchema,
  answer: ResponseSchema.optional(),
  rationale: z.string().max(RATIONALE_CHARS),
  /** The deciding machine's confidence, when it gave a valid one. */
  confidence: z.number().min(0).max(1).optional(),
  model: z.string().max(200).optional(),
  error: z.string().max(RATIONALE_CHARS).optional(),
  latencyMs: z.number().min(0),
});
export type Decision = z.infer<typeof DecisionSchema>;

/** Asks for an answer to prefill on the person's devices (marked as a suggestion). */
export const SuggestRequestSchema = z.object({
  inquiry: InquirySchema,
  budgetMs: z.number().int().min(0),
});
export type SuggestRequest = z.infer<typeof SuggestRequestSchema>;

export const SuggestionSchema = z.object({
  answer: ResponseSchema.optional(),
  rationale: z.string().max(RATIONALE_CHARS),
  model: z.string().max(200).optional(),
  error: z.string().max(RATIONALE_CHARS).optional(),
});
export type Suggestion = z.infer<typeof SuggestionSchema>;

/**
 * The fallback decision agent, in this process or behind `HITL_DECISION_URL`. It never throws for
 * a bad model or a slow reply: it fails closed and says why.
 */
export interface Decider {
  decide(request: DecisionRequest): Promise<Decision>;
  suggest(request: SuggestRequest): Promise<Suggestion>;
}

/** What a strategy proposes before the fit check and the approval gate have their say. */
export interface Proposal {
  answer?: InquiryResponse;
  rationale: string;
  /** The deciding machine's confidence, as given (the gate judges whether it is valid). */
  confidence?: unknown;
  model?: string;
  error?: string;
}

/** The parts of an inquiry the strategies read. */
export type DecisionInquiry = Pick<
  Inquiry,
  | 'inquiryId'
  | 'question'
  | 'questions'
  | 'options'
  | 'defaultAnswer'
  | 'suggestedAnswer'
  | 'context'
  | 'kind'
  | 'action'
  | 'critical'
  | 'confidence'
>;

export type { FallbackStrategy };

/** Cuts text to `max` characters, marking the cut. */
export function clip(text: string, max = RATIONALE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
