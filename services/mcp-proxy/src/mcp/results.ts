import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ProxyOutcome } from '../audit/audit-sink.js';

/** Why a call was not executed: what the agent reads (`isError: true`, nothing ran). */
export type Refusal = Exclude<ProxyOutcome, 'passed' | 'approved'> | 'mismatch' | 'key_reused';

/** Tells the model plainly that nothing ran and why; it never reads as an approval. */
export function refusalResult(
  reason: Refusal,
  call: { tool: string; server: string; inquiryId?: string; key?: string; detail?: string },
): CallToolResult {
  const what = `"${call.tool}" on ${call.server}`;
  const texts: Record<Refusal, string> = {
    rejected: `The human declined this action: ${what} was not executed. Do not retry it unchanged; ask the person what to do instead.`,
    refused: `The human declined to approve this action: ${what} was not executed.`,
    timed_out: `No human approved in time: ${what} was not executed. Nothing was approved by the silence.`,
    cancelled: `The approval was cancelled: ${what} was not executed.`,
    expired: `The approval arrived after it had expired: ${what} was not executed. Call again to ask again.`,
    failed: `The approval could not be asked (${call.detail ?? 'approval service unavailable'}): ${what} was not executed.`,
    mismatch: `The approval does not match this exact call (another tool or other arguments): ${what} was not executed.`,
    key_reused: `The idempotency key "${call.key ?? ''}" was already used for a different call: ${what} was not executed. Use a new key for a new call.`,
  };
  return {
    isError: true,
    content: [{ type: 'text', text: texts[reason] }],
    _meta: {
      approval: { outcome: reason, ...(call.inquiryId ? { inquiryId: call.inquiryId } : {}) },
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
