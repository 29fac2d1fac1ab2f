import { randomUUID } from 'node:crypto';
import { LIMITS } from '@hitl/protocol';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallDeps } from './call-deps.js';
import { approvalTimes, argumentsOf, digestOf, gateFor, outlivesHold, runGatedCall } from './gated-call.js';
import { attach, DRIVE_SLACK_MS } from './late-approval.js';
import { type KeyedCall, ownerHooks, runOwned } from './owned-run.js';
import { refusalResult } from './results.js';

/** `_meta.idempotencyKey`, checked: a string of 1..255 characters, or absent. */
export function idempotencyKeyOf(meta: Record<string, unknown> | undefined): string | undefined {
  const key = meta?.idempotencyKey;
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length === 0 || key.length > LIMITS.idempotencyKeyChars) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `_meta.idempotencyKey: must be a string of 1 to ${LIMITS.idempotencyKeyChars} characters`,
    );
  }
  return key;
}

/**
 * Runs a call with `_meta.idempotencyKey` at most once per (user, key): the first caller owns it and
 * runs it through the gate; every duplicate, here or on another proxy node, waits for the stored
 * outcome. The same key with another call is refused without running anything.
 *
 * When the approval may outlive the hold (`approvalWindowMs`), the call returns `pending` at the
 * hold's end and the operation is parked; the next call with the same key (or
 * `get_operation_status`) adopts it, waits on the same approval, and runs the backend once approved.
 */
export async function runIdempotentCall(deps: CallDeps, call: KeyedCall): Promise<CallToolResult> {
  const { userId, idempotencyKey: key } = call;
  const digest = digestOf(deps, userId, call.params);
  const gate = await gateFor(deps, call.params);
  const times = approvalTimes(deps, gate);
  const long = outlivesHold(deps, gate);
  const leaseMs = times.windowMs + deps.timings.grantGraceMs + deps.timings.backendTimeoutMs + 60_000;
  // A long approval never holds the agent's call past the hold; others wait as long as the work takes.
  const until = long ? deps.clock.now() + times.holdMs : Number.POSITIVE_INFINITY;
  const shown = { tool: call.params.name, server: deps.backend.name, key };

  for (let attempt = 0; attempt < 3; attempt++) {
    const owner = randomUUID();
    const now = deps.clock.now();
    const begun = await deps.store.beginOperation(
      {
        userId,
        key,
        digest,
        state: gate.needsHuman ? 'awaiting_approval' : 'in_progress',
        owner,
        ...(long
          ? {
              driveUntil: now + times.holdMs + DRIVE_SLACK_MS,
              call: { name: call.params.name, arguments: argumentsOf(call.params) },
            }
          : {}),
      },
      leaseMs,
      now,
    );
    if (begun.started) {
      const owned: KeyedCall = { ...call, ...ownerHooks(deps, call, owner) };
      const result = await runOwned(deps, owned, owner, () => runGatedCall(deps, owned, gate));
      if (result) return result;
      // Another caller took the operation over while we waited: its outcome is ours.
      const taken = await deps.store.getOperation(userId, key);
      const attached = taken && (await attach(deps, call, taken, until));
      if (attached) return attached;
      continue;
    }
    if (begun.existing.digest !== digest) return refusalResult('key_reused', shown);
    const attached = await attach(deps, call, begun.existing, until);
    if (attached) return attached;
    // The owner's lease lapsed (it died): claim the key ourselves.
  }
  throw new McpError(ErrorCode.InternalError, `operation "${key}" kept changing hands; retry later`);
}
