import {
  AudienceSchema,
  DEFAULT_MAX_ANSWER_WINDOW_MS,
  LIMITS,
  MIN_ANSWER_WINDOW_MS,
  MIN_TIER_MS,
} from '@hitl/protocol';
import { z } from 'zod';

/** `all`: ask for every call; `gated`: ask by the rules; `yolo`: ask for none (each pass is logged). */
export const ModeSchema = z.enum(['all', 'gated', 'yolo']);
export type Mode = z.infer<typeof ModeSchema>;

const ThresholdSchema = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
const TimeoutSchema = z
  .number()
  .int('must be a whole number of ms')
  .min(MIN_TIER_MS, `must be at least ${MIN_TIER_MS} ms`);

/**
 * An approval window: at most the inquiry node's default cap on an answer window (7 days); a node
 * with a lower `HITL_MAX_ANSWER_WINDOW_MS` refuses a longer one, and the call is not executed.
 */
const WindowSchema = z
  .number()
  .int('must be a whole number of ms')
  .min(MIN_ANSWER_WINDOW_MS, `must be at least ${MIN_ANSWER_WINDOW_MS} ms`)
  .max(DEFAULT_MAX_ANSWER_WINDOW_MS, `must be at most ${DEFAULT_MAX_ANSWER_WINDOW_MS} ms (7 days)`);

/** Settings for one tool (name or glob), each overriding the file-wide value. */
export const ToolOverrideSchema = z
  .object({
    mode: ModeSchema.optional(),
    /** True: always a human (like being in `critical`); false: not critical even if a glob matches. */
    critical: z.boolean().optional(),
    confidenceThreshold: ThresholdSchema.optional(),
    approvalTimeoutMs: TimeoutSchema.optional(),
    approvalWindowMs: WindowSchema.optional(),
    /**
     * Who approves this tool's calls (a team or users of the inquiry node's directory); unset: the
     * calling agent's own user.
     */
    approvers: AudienceSchema.optional(),
    /**
     * A two-person (or k-person) rule: this many different approvers must approve. The
     * tool is then always put to people, whatever the mode, and the grant is issued only at the quorum.
     */
    quorum: z.number().int().min(2).max(LIMITS.quorumMax).optional(),
  })
  .strict()
  .refine((tool) => tool.quorum === undefined || tool.approvers !== undefined, {
    message: 'a quorum needs approvers (a team or users) to vote',
    path: ['approvers'],
  });
export type ToolOverride = z.infer<typeof ToolOverrideSchema>;

/** The policy file (YAML or JSON). Unknown keys are errors, so a typo never silently relaxes the gate. */
export const PolicySchema = z
  .object({
    mode: ModeSchema.default('gated'),
    /** Tool names or globs (picomatch) that always need a human in `gated` mode. */
    critical: z.array(z.string().min(1, 'must not be empty')).default([]),
    confidenceThreshold: ThresholdSchema.default(0.7),
    /** How long the agent's call is held for the approval; unset: the inquiry node's service tier. */
    approvalTimeoutMs: TimeoutSchema.optional(),
    /**
     * How long a human has to approve (`answerWithinMs` of the approval inquiry); unset: the hold.
     * Longer than the hold: the call returns `pending` at the hold's end and is collected later.
     */
    approvalWindowMs: WindowSchema.optional(),
    /** Per-tool overrides keyed by tool name or glob; an exact name beats globs, then file order. */
    tools: z.record(z.string().min(1), ToolOverrideSchema).default({}),
  })
  .strict();
export type Policy = z.infer<typeof PolicySchema>;

/** The policy with no file: gated, nothing critical, threshold 0.7. */
export const DEFAULT_POLICY: Policy = PolicySchema.parse({});
