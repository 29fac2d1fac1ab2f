import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ProxyOutcome } from '../audit/audit-sink.js';

/** Why a call was not executed: what the agent reads (`isError: true`, nothing ran). */
export type Refusal =
  | Exclude<ProxyOutcome, 'passed' | 'approved' | 'standing'>
  | 'mismatch'
  | 'key_reused'
  | 'unreadable';

/** Tells the model plainly that nothing ran and why; it never reads as an approval. */
export function refusalResult(
  reason: Refusal,
  call: { tool: string; server: string; inquiryId?: string; key?: string; detail?: string; said?: string },
): CallToolResult {
  const what = `"${call.tool}" on ${call.server}`;
  // The person's own words: the agent's next try can follow them.
  const said = call.said ? ` They said: ${JSON.stringify(call.said)}` : '';
  const texts: Record<Refusal, string> = {
    rejected: `The human declined this action: ${what} was not executed. Do not retry it unchanged; ask the person what to do instead.`,
    refused: `The human declined to approve this action: ${what} was not executed.`,
    timed_out: `No human approved in time: ${what} was not executed. Nothing was approved by the silence.`,
    cancelled: `The approval was cancelled: ${what} was not executed.`,
    expired: `The approval arrived after it had expired: ${what} was not executed. Call again to ask again.`,
    failed: `The approval could not be asked (${call.detail ?? 'approval service unavailable'}): ${what} was not executed.`,
    mismatch: `The approval does not match this exact call (another tool or other arguments): ${what} was not executed.`,
    unreadable: `The approval's state could not be read (${call.detail ?? 'inquiry service unavailable'}): ${what} was not executed and nothing is approved. Call get_operation_status with {"idempotencyKey": "${call.key ?? ''}"} again later.`,
    key_reused: `The idempotency key "${call.key ?? ''}" was already used for a different call: ${what} was not executed. Use a new key for a new call.`,
  };
  return {
    isError: true,
    content: [{ type: 'text', text: texts[reason] + said }],
    _meta: {
      approval: {
        outcome: reason,
        ...(call.inquiryId ? { inquiryId: call.inquiryId } : {}),
        ...(call.said ? { reason: call.said } : {}),
      },
    },
  };
}

/** Where a pending operation stands: still waiting for the person, or approved and running elsewhere. */
export type PendingStage = 'awaiting_approval' | 'in_progress';

/**
 * The result of a call whose approval is still open when the hold ends (not an error: nothing ran,
 * nothing is approved). Tells the model how to collect the outcome with the idempotency key.
 */
export function pendingResult(call: {
  tool: string;
  server: string;
  key: string;
  stage: PendingStage;
  inquiryId?: string;
  /** Epoch ms the person has until, when known. */
  answerBy?: number;
  /** The proxy chose the key (the agent sent none). */
  assignedKey?: boolean;
}): CallToolResult {
  const what = `"${call.tool}" on ${call.server}`;
  const until = call.answerBy ? ` (they have until ${new Date(call.answerBy).toISOString()})` : '';
  const status =
    call.stage === 'in_progress'
      ? `The person approved ${what} and it is running now; its result is not here yet.`
      : `Not run yet: ${what} is waiting for a person to approve it${until}. Nothing has run and nothing is approved yet.`;
  const keyNote = call.assignedKey
    ? ` You sent no _meta.idempotencyKey, so this call was given the key "${call.key}".`
    : '';
  const collect =
    ` To get the outcome, call get_operation_status with {"idempotencyKey": "${call.key}", "waitMs": 45000}` +
    ' and repeat while it says awaiting_approval or in_progress; or call' +
    ` "${call.tool}" again with exactly the same arguments and _meta.idempotencyKey "${call.key}".` +
    ' A call with another key asks the person again.';
  return {
    content: [{ type: 'text', text: `${status}${keyNote}${collect}` }],
    _meta: {
      idempotencyKey: call.key,
      approval: {
        outcome: 'pending',
        stage: call.stage,
        ...(call.inquiryId ? { inquiryId: call.inquiryId } : {}),
        ...(call.answerBy ? { answerBy: new Date(call.answerBy).toISOString() } : {}),
      },
    },
  };
}

/**
 * What every call with `key` gets after the proxy stopped while the backend may have been running
 * it: the outcome is unknown, and the key never runs it again (at most once wins over "done").
 */
export function interruptedResult(key: string): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text:
          `The approval proxy stopped while this action (idempotency key "${key}") was running, so ` +
          'whether it took effect is unknown. It will not run again under this key: check its effect ' +
          'before calling again with a new key.',
      },
    ],
    _meta: { interrupted: true },
  };
}
