import type { Operation } from '@hitl/store';
import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallDeps } from './call-deps.js';
import type { GatedCall, GatedOutcome } from './gated-call.js';
import { interruptedResult, pendingResult } from './results.js';

/** What is stored for a key: the result every duplicate gets, or the protocol error it rethrows. */
export type StoredOutcome =
  | { result: CallToolResult }
  | { error: { code: number; message: string; data?: unknown } };

/** A call that runs under an idempotency key (given by the agent, or assigned by the proxy). */
export type KeyedCall = GatedCall & { idempotencyKey: string; assignedKey?: boolean };

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

/** The hooks an owner of an operation gives the gated call: stage updates and the claim to run. */
export function ownerHooks(
  deps: CallDeps,
  call: KeyedCall,
  owner: string,
): Pick<GatedCall, 'onStage' | 'claimRun'> {
  const { userId, idempotencyKey: key } = call;
  return {
    onStage: (stage) => {
      void deps.store
        .updateOperation(userId, key, owner, stage, deps.clock.now())
        .catch((error: unknown) => deps.logger.warn({ err: error, key }, 'operation update failed'));
    },
    claimRun: () =>
      deps.store.updateOperation(userId, key, owner, { state: 'in_progress' }, deps.clock.now()),
  };
}

/**
 * Runs `run` as the operation's owner and records how it ended: a result (or protocol error) is
 * stored for every duplicate; a pending approval parks the operation for whoever collects it next;
 * `undefined` when another caller took the operation over (the caller then waits for its outcome).
 */
export async function runOwned(
  deps: CallDeps,
  call: KeyedCall,
  owner: string,
  run: () => Promise<GatedOutcome>,
): Promise<CallToolResult | undefined> {
  const { userId, idempotencyKey: key } = call;
  let outcome: StoredOutcome;
  try {
    const gated = await run();
    if (gated.kind === 'taken') return undefined;
    if (gated.kind === 'pending') {
      await park(deps, call, owner, { grantId: gated.grantId, inquiryId: gated.inquiryId });
      return pendingResult({
        tool: call.params.name,
        server: deps.backend.name,
        key,
        stage: 'awaiting_approval',
        ...(gated.inquiryId ? { inquiryId: gated.inquiryId } : {}),
        ...(gated.answerBy ? { answerBy: gated.answerBy } : {}),
        ...(call.assignedKey ? { assignedKey: true } : {}),
      });
    }
    outcome = { result: gated.result };
  } catch (error) {
    outcome = toStored(error);
  }
  await deps.store
    .finishOperation(userId, key, owner, outcome, deps.timings.resultRetentionMs, deps.clock.now())
    .catch((error: unknown) => deps.logger.error({ err: error, key }, 'storing the operation result failed'));
  if ('error' in outcome) throw new McpError(outcome.error.code, outcome.error.message, outcome.error.data);
  return outcome.result;
}

/** Stops waiting on an operation that still awaits its approval: anyone collecting it may adopt it. */
export async function park(
  deps: CallDeps,
  call: KeyedCall,
  owner: string,
  ids: { grantId?: string; inquiryId?: string } = {},
): Promise<void> {
  await deps.store
    .updateOperation(
      call.userId,
      call.idempotencyKey,
      owner,
      {
        state: 'awaiting_approval',
        ...(ids.grantId ? { grantId: ids.grantId } : {}),
        ...(ids.inquiryId ? { inquiryId: ids.inquiryId } : {}),
        driveUntil: 0,
      },
      deps.clock.now(),
    )
    .catch((error: unknown) =>
      deps.logger.warn({ err: error, key: call.idempotencyKey }, 'parking the operation failed'),
    );
}
