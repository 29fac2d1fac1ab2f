import type { Audience, Editable } from '@hitl/protocol';
import picomatch from 'picomatch';
import type { Mode, Policy, ToolOverride } from './policy-schema.js';

/** What the backend says about a tool (from its `tools/list`); absent when it says nothing. */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

/** Why a call needs a human, or why it may pass without one. */
export type GateReason =
  | 'mode_all'
  | 'mode_yolo'
  | 'critical'
  | 'quorum'
  | 'passkey'
  | 'read_only'
  | 'destructive'
  | 'confidence_missing'
  | 'confidence_invalid'
  | 'confidence_low'
  | 'confident';

export interface GateDecision {
  needsHuman: boolean;
  reason: GateReason;
  /** The mode that applied to this tool (file-wide or its override). */
  mode: Mode;
  /** The tool is in the critical list (or its override says so). */
  critical: boolean;
  threshold: number;
  /** How long the call is held for an approval; undefined: the inquiry node's service tier. */
  approvalTimeoutMs?: number;
  /** How long a human has to approve; undefined: the hold. */
  approvalWindowMs?: number;
  /** Who approves (the tool's `approvers`); undefined: the calling agent's user. */
  approvers?: Audience;
  /** How many different approvers must approve; undefined: one. */
  quorum?: number;
  /** Approved only with the approver's passkey. */
  requirePasskey?: boolean;
  /** Which arguments the approver may edit (the tool's `editable`); undefined: none. */
  editable?: Editable;
  /**
   * A standing approval may cover this call: false for critical and quorum tools and for tools whose
   * policy says `standing: false` (their approval inquiries say `standing: false`).
   */
  standing: boolean;
  /**
   * The approval is also put in the agent's chat (the tool's `approveInChat`): never for a critical,
   * quorum or passkey call, whatever the policy says.
   */
  approveInChat: boolean;
}

/** The override for a tool: its exact name first, then the first glob (in file order) that matches it. */
export function toolOverride(policy: Policy, tool: string): ToolOverride {
  const exact = policy.tools[tool];
  if (exact) return exact;
  for (const [pattern, override] of Object.entries(policy.tools)) {
    if (picomatch.isMatch(tool, pattern, { dot: true })) return override;
  }
  return {};
}

function inCriticalList(policy: Policy, tool: string): boolean {
  return policy.critical.some(
    (pattern) => pattern === tool || picomatch.isMatch(tool, pattern, { dot: true }),
  );
}

/** `_meta.confidence` as the gate reads it: a finite number in 0..1 or a reason it is not one. */
export function readConfidence(value: unknown): number | 'confidence_missing' | 'confidence_invalid' {
  if (value === undefined || value === null) return 'confidence_missing';
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    return 'confidence_invalid';
  }
  return value;
}

/**
 * Decides whether a call needs a human. Pure: same input, same answer.
 *
 * `gated` applies, in order: critical → human; backend `readOnlyHint: true` → pass; destructive →
 * human, where a tool is destructive unless its annotations say `destructiveHint: false` (the MCP
 * spec's default: a tool with no annotations asks, whatever confidence the agent claims); confidence
 * missing, invalid or below the threshold → human (exactly the threshold passes); else pass. `all`
 * always asks; `yolo` never does.
 *
 * @example
 * decideGate(policy, 'delete_file', undefined, 0.99) // → { needsHuman: true, reason: 'destructive', ... }
 * decideGate(policy, 'rename', { destructiveHint: false }, 0.9) // → { needsHuman: false, reason: 'confident', ... }
 */
export function decideGate(
  policy: Policy,
  tool: string,
  hints: ToolHints | undefined,
  confidence: unknown,
): GateDecision {
  const override = toolOverride(policy, tool);
  const mode = override.mode ?? policy.mode;
  const critical = override.critical ?? inCriticalList(policy, tool);
  const threshold = override.confidenceThreshold ?? policy.confidenceThreshold;
  const approvalTimeoutMs = override.approvalTimeoutMs ?? policy.approvalTimeoutMs;
  const approvalWindowMs = override.approvalWindowMs ?? policy.approvalWindowMs;
  const decide = (needsHuman: boolean, reason: GateReason): GateDecision => ({
    needsHuman,
    reason,
    mode,
    critical,
    threshold,
    ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
    ...(approvalWindowMs === undefined ? {} : { approvalWindowMs }),
    ...(override.approvers === undefined ? {} : { approvers: override.approvers }),
    ...(override.quorum === undefined ? {} : { quorum: override.quorum }),
    ...(override.requirePasskey ? { requirePasskey: true } : {}),
    ...(override.editable === undefined ? {} : { editable: override.editable }),
    standing:
      !critical && override.quorum === undefined && !override.requirePasskey && override.standing !== false,
    approveInChat:
      override.approveInChat === true &&
      !critical &&
      override.quorum === undefined &&
      !override.requirePasskey,
  });

  // A quorum or a passkey is a rule about people: no mode or hint lets such a call pass without them.
  if (override.quorum !== undefined) return decide(true, 'quorum');
  if (override.requirePasskey) return decide(true, 'passkey');
  if (mode === 'all') return decide(true, 'mode_all');
  if (mode === 'yolo') return decide(false, 'mode_yolo');
  if (critical) return decide(true, 'critical');
  if (hints?.readOnlyHint === true) return decide(false, 'read_only');
  if (hints?.destructiveHint !== false) return decide(true, 'destructive');
  const read = readConfidence(confidence);
  if (typeof read === 'string') return decide(true, read);
  return read < threshold ? decide(true, 'confidence_low') : decide(false, 'confident');
}

/** Words for the human and the log: why this call was (or was not) put to a person. */
export const GATE_REASON_TEXT: Record<GateReason, string> = {
  mode_all: 'every call needs approval (mode "all")',
  mode_yolo: 'no approvals (mode "yolo")',
  critical: 'the action is on the critical list',
  quorum: 'the policy needs more than one person to approve it',
  passkey: 'the policy needs the approver to confirm with a passkey',
  read_only: 'the server marks it read-only',
  destructive: 'the server does not mark it non-destructive (destructiveHint: false)',
  confidence_missing: 'the agent gave no confidence',
  confidence_invalid: 'the agent gave an invalid confidence',
  confidence_low: 'the agent is not confident enough',
  confident: 'the agent is confident enough',
};
