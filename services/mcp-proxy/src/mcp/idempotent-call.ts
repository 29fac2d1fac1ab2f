import { randomUUID } from 'node:crypto';
import { LIMITS } from '@hitl/protocol';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Operation } from '../store/proxy-store.js';
import type { CallDeps } from './call-deps.js';
import { digestOf, type GatedCall, gateFor, runGatedCall } from './gated-call.js';
import { interruptedResult, refusalResult } from './results.js';

/** What is stored for a key: the result every duplicate gets, or the protocol error it rethrows. */
export type StoredOutcome =
  | { result: CallToolResult }
  | { error: { code: number; message: string; data?: unknown } };

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

/** A stored outcome as the duplicate caller gets it, marked as a replay. */
export function replay(op: Operation): CallToolResult {
  const stored = op.result as StoredOutcome | undefined;
  if (!stored) throw new McpError(ErrorCode.InternalError, 'the stored operation has no result');
  if ('error' in stored) throw new McpError(stored.error.code, stored.error.message, stored.error.data);
  return {
    ...stored.result,
    _meta: { ...stored.result._meta, idempotencyKey: op.key, replayed: true },
  };
}

/** The stored outcome of an operation its proxy stopped in the middle of (see `interruptedResult`). */
export function interruptedOutcome(op: Operation): StoredOutcome {
  return { result: interruptedResult(op.key) };
}

function toStored(error: unknown): StoredOutcome {
  if (error instanceof McpError)
    return { error: { code: error.code, message: error.message, data: error.data } };
  return { error: { code: ErrorCode.InternalError, message: (error as Error)?.message ?? String(error) } };
}

/**
 * Runs a call with `_meta.idempotencyKey` at most once per (user, key): the first caller owns it and
 * runs it through the gate; every duplicate, here or on another proxy node, waits for the stored
 * outcome. The same key with another call is refused without running anything.
 */
export async function runIdempotentCall(deps: CallDeps, call: GatedCall & { idempotencyKey: string }) {
  const { userId, idempotencyKey: key } = call;
  const digest = digestOf(deps, userId, call.params);
  const gate = await gateFor(deps, call.params);
  const windowMs = gate.approvalTimeoutMs ?? deps.timings.approvalWindowMs;
  const leaseMs = windowMs + deps.timings.grantGraceMs + deps.timings.backendTimeoutMs + 60_000;
  const shown = { tool: call.params.name, server: deps.backend.name, key };

  for (let attempt = 0; attempt < 3; attempt++) {
    const owner = randomUUID();
    const state = gate.needsHuman ? 'awaiting_approval' : 'in_progress';
    const begun = await deps.store.beginOperation(
      { userId, key, digest, state, owner },
      leaseMs,
      deps.clock.now(),
    );
    if (!begun.started) {
      if (begun.existing.digest !== digest) return refusalResult('key_reused', shown);
      const done = await deps.store.waitForOperation(userId, key, call.signal);
      if (done) return replay(done);
      continue; // the owner's lease lapsed (it died): claim the key ourselves
    }
    const onStage: GatedCall['onStage'] = (stage) => {
      void deps.store
        .updateOperation(userId, key, owner, stage, deps.clock.now())
        .catch((error: unknown) => deps.logger.warn({ err: error, key }, 'operation update failed'));
    };
    let outcome: StoredOutcome;
    try {
      outcome = { result: await runGatedCall(deps, { ...call, onStage }, gate) };
    } catch (error) {
      outcome = toStored(error);
    }
    await deps.store
      .finishOperation(userId, key, owner, outcome, deps.timings.resultRetentionMs, deps.clock.now())
      .catch((error: unknown) =>
        deps.logger.error({ err: error, key }, 'storing the operation result failed'),
      );
    if ('error' in outcome) throw new McpError(outcome.error.code, outcome.error.message, outcome.error.data);
    return outcome.result;
  }
  throw new McpError(ErrorCode.InternalError, `operation "${key}" kept changing hands; retry later`);
}
