import type { Action, Audience, Editable } from '@hitl/protocol';
import type { GateReason } from '../policy/gate.js';

/** Everything the human is shown about one call that needs approval. */
export interface ApprovalRequest {
  userId: string;
  /** `{server, tool, arguments}` with the arguments in canonical key order. */
  action: Action;
  /** The canonical JSON of the arguments, exactly as bound into the digest. */
  canonicalArguments: string;
  reason: GateReason;
  critical: boolean;
  /** The agent's `_meta.confidence`, when it was a valid number. */
  confidence?: number;
  /** How long the call is held (`timeoutMs`); undefined: the inquiry node's service tier. */
  timeoutMs?: number;
  /** The hold in ms, as the proxy counts it (`timeoutMs`, else the service tier). */
  holdMs: number;
  /** How long the human has (`answerWithinMs`), when longer than the hold. */
  answerWithinMs?: number;
  /** Who approves (a team or users); undefined: `userId` alone. */
  approvers?: Audience;
  /** How many different approvers must approve; undefined: one. */
  quorum?: number;
  /** Approved only with the approver's passkey (`requirePasskey` on the inquiry). */
  requirePasskey?: boolean;
  /** Which arguments the approver may edit; undefined: none. */
  editable?: Editable;
  /** The backend tool's input schema (the edit form, and what the node checks an edit against). */
  inputSchema?: Record<string, unknown>;
  /** False: the approver may not allow this call for a while (critical, quorum, `standing: false`). */
  standing: boolean;
  /** Ties the inquiry to the grant (used as its idempotency key, so a retried ask never asks twice). */
  grantId: string;
}

/**
 * What the human (or the lack of one) decided. Only `approved` can ever lead to a forwarded call;
 * `pending`: the wait ended first and the approval is still open (its answer window is longer).
 */
export interface HumanVerdict {
  outcome: 'approved' | 'rejected' | 'refused' | 'timed_out' | 'cancelled' | 'failed' | 'pending';
  inquiryId?: string;
  deviceName?: string;
  /** For `failed`: what went wrong. */
  detail?: string;
  /** For `failed`: the inquiry service no longer knows the approval (it will never be answered). */
  gone?: boolean;
  /** The person's reason (a reject or a refusal may carry one). */
  reason?: string;
  /** For `approved`: the arguments approved (edited or not) and the names the person changed. */
  approved?: { arguments: Record<string, unknown>; changed: string[] };
}

export interface AskOptions {
  signal: AbortSignal;
  /** Called with each heartbeat of the wait (the inquiry id is known from the first one on). */
  onProgress?: (update: { inquiryId?: string; message?: string }) => void;
}

/** An approval asked earlier: its inquiry id when known, else its grant (the inquiry's idempotency key). */
export interface AskedApproval {
  userId: string;
  grantId: string;
  inquiryId?: string;
}

/** Puts an approval to the calling agent's human: the port the call flow depends on. */
export interface AskHuman {
  /** Asks and waits up to the hold; `pending` when the approval's window outlasts it. */
  ask(request: ApprovalRequest, options: AskOptions): Promise<HumanVerdict>;
  /** Waits up to `waitMs` more for an approval asked earlier; `pending` when it is still open. */
  collect(asked: AskedApproval, waitMs: number, options: AskOptions): Promise<HumanVerdict>;
}
