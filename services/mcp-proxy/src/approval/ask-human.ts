import type { Action } from '@hitl/protocol';
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
  /** How long the human has; undefined: the inquiry node's service tier. */
  timeoutMs?: number;
  /** Ties the inquiry to the grant (used as its idempotency key, so a retried ask never asks twice). */
  grantId: string;
}

/** What the human (or the lack of one) decided. Only `approved` can ever lead to a forwarded call. */
export interface HumanVerdict {
  outcome: 'approved' | 'rejected' | 'refused' | 'timed_out' | 'cancelled' | 'failed';
  inquiryId?: string;
  deviceName?: string;
  /** For `failed`: what went wrong. */
  detail?: string;
}

export interface AskOptions {
  signal: AbortSignal;
  /** Called with each heartbeat of the wait (the inquiry id is known from the first one on). */
  onProgress?: (update: { inquiryId?: string; message?: string }) => void;
}

/** Puts an approval to the calling agent's human: the port the call flow depends on. */
export interface AskHuman {
  ask(request: ApprovalRequest, options: AskOptions): Promise<HumanVerdict>;
}
