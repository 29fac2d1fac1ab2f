import { LIMITS, utf8Bytes } from '@hitl/protocol';
import { GATE_REASON_TEXT } from '../policy/gate.js';
import type { ApprovalRequest } from './ask-human.js';

/** Longest argument text shown inline in the question (the full canonical JSON is in `action`/`context`). */
const INLINE_ARGS_CHARS = 2000;

/** The inquiry's idempotency key for a grant: a retried or later ask finds the same question. */
export function approvalKey(grantId: string): string {
  return `proxy:${grantId}`;
}

/** `send_inquiry` arguments for one approval: the exact tool, backend and canonical arguments. */
export function approvalQuestion(request: ApprovalRequest): Record<string, unknown> {
  const { action, canonicalArguments } = request;
  const shown =
    canonicalArguments.length > INLINE_ARGS_CHARS
      ? `${canonicalArguments.slice(0, INLINE_ARGS_CHARS)}… (full arguments below)`
      : canonicalArguments;
  // A schema the node would refuse to hold is left out, and with it the edit it would check.
  const schema =
    request.inputSchema && utf8Bytes(JSON.stringify(request.inputSchema)) <= LIMITS.inputSchemaBytes
      ? request.inputSchema
      : undefined;
  return {
    question: `Allow "${action.tool}" on ${action.server} with ${shown}?`,
    kind: 'approval',
    action: schema ? { ...action, inputSchema: schema } : action,
    critical: request.critical,
    ...(request.editable !== undefined && schema ? { editable: request.editable } : {}),
    ...(request.standing ? {} : { standing: false }),
    context: {
      why: GATE_REASON_TEXT[request.reason],
      arguments: canonicalArguments,
      ...(request.confidence === undefined ? {} : { confidence: request.confidence }),
    },
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    ...(request.answerWithinMs === undefined ? {} : { answerWithinMs: request.answerWithinMs }),
    ...(request.approvers === undefined ? {} : { audience: request.approvers }),
    ...(request.quorum === undefined ? {} : { quorum: request.quorum }),
    ...(request.requirePasskey ? { requirePasskey: true } : {}),
    idempotencyKey: approvalKey(request.grantId),
  };
}
