import {
  AudienceSchema,
  DEFAULT_MAX_ANSWER_WINDOW_MS,
  EditableSchema,
  LIMITS,
  MIN_ANSWER_WINDOW_MS,
  MIN_TIER_MS,
} from '@hitl/protocol';
import picomatch from 'picomatch';
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

/** Why `approveInChat` is refused on a tool (its own settings, or its name on the critical list). */
const CHAT_BARRED =
  "a critical, quorum or passkey tool is never approved in the agent's chat (remove approveInChat)";

/** A tool whose approvals must be decided outside the agent's reach. */
function chatBarred(tool: { critical?: boolean; quorum?: number; requirePasskey?: boolean }): boolean {
  return tool.critical === true || tool.quorum !== undefined || tool.requirePasskey === true;
}

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
    /**
     * Approved only with a passkey on the approver's device, bound to the exact arguments. The tool is
     * then always put to a person, whatever the mode; no machine or chat approves it.
     */
    requirePasskey: z.boolean().optional(),
    /**
     * The approver may edit the call's arguments before approving: every argument (`true`) or the
     * top-level names listed. The backend then runs the approved arguments, exactly once.
     */
    editable: EditableSchema.optional(),
    /**
     * False: an approval of this tool may never be allowed for a while (`allowFor`). Critical and
     * quorum tools never may, whatever this says.
     */
    standing: z.boolean().optional(),
    /**
     * True: the approval is also put in the agent's own chat (an MCP elicitation on the held call),
     * as one more device. Default false: the agent's client software answers an elicitation, and the
     * gate exists because the agent's side is not trusted. Never on critical, quorum or passkey tools.
     */
    approveInChat: z.boolean().optional(),
  })
  .strict()
  .refine((tool) => tool.quorum === undefined || tool.approvers !== undefined, {
    message: 'a quorum needs approvers (a team or users) to vote',
    path: ['approvers'],
  })
  .refine((tool) => !tool.approveInChat || !chatBarred(tool), {
    message: CHAT_BARRED,
    path: ['approveInChat'],
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
  .strict()
  .superRefine((policy, ctx) => {
    // A tool named on the critical list (and not taken off it) never gets approveInChat. A glob that
    // only overlaps the list is checked per call instead: the gate never elicits a critical call.
    for (const [name, tool] of Object.entries(policy.tools)) {
      if (!tool.approveInChat || tool.critical === false) continue;
      if (
        policy.critical.some((pattern) => pattern === name || picomatch.isMatch(name, pattern, { dot: true }))
      ) {
        ctx.addIssue({ code: 'custom', message: CHAT_BARRED, path: ['tools', name, 'approveInChat'] });
      }
    }
  });
export type Policy = z.infer<typeof PolicySchema>;

/** The policy with no file: gated, nothing critical, threshold 0.7. */
export const DEFAULT_POLICY: Policy = PolicySchema.parse({});
