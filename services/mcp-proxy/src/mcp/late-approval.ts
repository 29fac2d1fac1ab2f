import { randomUUID } from 'node:crypto';
import { isAdoptable, type Operation } from '@hitl/store';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallDeps } from './call-deps.js';
import { auditFor, type GatedCall, gateFor, progressFor, settleAndRun } from './gated-call.js';
import { type KeyedCall, ownerHooks, park, replay, runOwned } from './owned-run.js';
import { pendingResult, refusalResult } from './results.js';

/**
 * How long past the end of its wait a caller that collects an approval still counts as waiting on
 * it; after that (it died, or hangs), another caller may adopt the operation.
 */
export const DRIVE_SLACK_MS = 15_000;

/**
 * Attaches to an operation someone else started, until `until` (epoch ms): its stored result once
 * done; when it waits for a late approval nobody is waiting on, this caller adopts it and collects
 * the approval itself (running the backend once approved); a `pending` result when time runs out
 * first; `undefined` when the operation is gone (its lease lapsed: the caller may claim the key).
 *
 * `call.params` must be the operation's own call (same digest): the agent's retry, or the stored call.
 */
export async function attach(
  deps: CallDeps,
  call: KeyedCall,
  op: Operation,
  until: number,
): Promise<CallToolResult | undefined> {
  let current: Operation | null = op;
  for (;;) {
    if (current === null) return undefined;
    if (current.state === 'done') return replay(current);
    const now = deps.clock.now();
    if (isAdoptable(current, now)) {
      const owner = randomUUID();
      const { userId, idempotencyKey: key } = call;
      // A caller with no time limit still waits on the approval one hold at a time.
      const collectUntil = Number.isFinite(until) ? until : now + deps.timings.holdMs;
      const adopted = await deps.store.adoptOperation(userId, key, owner, collectUntil + DRIVE_SLACK_MS, now);
      if (adopted) {
        const result = await collectAdopted(deps, call, adopted, owner, collectUntil);
        if (result) return result;
        current = await deps.store.getOperation(userId, key);
        continue;
      }
    }
    if (until <= now) return stillPending(deps, call, current);
    current = await waitUntil(deps, call, until);
  }
}

/** Waits for the operation to be done, adoptable or gone, or for `until`; then reads it. */
async function waitUntil(deps: CallDeps, call: KeyedCall, until: number): Promise<Operation | null> {
  const timeout = Number.isFinite(until)
    ? AbortSignal.timeout(Math.max(1, until - deps.clock.now()))
    : new AbortController().signal;
  const signal = AbortSignal.any([call.signal, timeout]);
  try {
    return await deps.store.waitForOperation(call.userId, call.idempotencyKey, signal, (o) =>
      isAdoptable(o, deps.clock.now()),
    );
  } catch (error) {
    if (call.signal.aborted || !timeout.aborted) throw error;
    return deps.store.getOperation(call.userId, call.idempotencyKey);
  }
}

function stillPending(deps: CallDeps, call: KeyedCall, op: Operation): CallToolResult {
  return pendingResult({
    tool: call.params.name,
    server: deps.backend.name,
    key: call.idempotencyKey,
    stage: op.state === 'in_progress' ? 'in_progress' : 'awaiting_approval',
    ...(op.inquiryId ? { inquiryId: op.inquiryId } : {}),
    ...(call.assignedKey ? { assignedKey: true } : {}),
  });
}

/**
 * As the operation's new owner: waits on its approval until `until`, then records the outcome
 * exactly as the first owner would (runs the backend once approved, stores a refusal, or parks it
 * again). An aborted wait parks it again and rethrows.
 */
async function collectAdopted(
  deps: CallDeps,
  call: KeyedCall,
  op: Operation,
  owner: string,
  until: number,
): Promise<CallToolResult | undefined> {
  const driven: KeyedCall = { ...call, ...ownerHooks(deps, call, owner) };
  const shown = { tool: call.params.name, server: deps.backend.name };
  const { grantId } = op;
  if (!grantId) {
    // Its first owner died before the approval was asked: nothing was, and nothing will be, approved.
    return runOwned(deps, driven, owner, async () => ({
      kind: 'done',
      result: refusalResult('failed', { ...shown, detail: 'the approval was never asked' }),
    }));
  }
  const gate = await gateFor(deps, call.params);
  const audit = auditFor(deps, driven, gate, deps.clock.now());
  const verdict = await deps.asker.collect(
    { userId: call.userId, grantId, ...(op.inquiryId ? { inquiryId: op.inquiryId } : {}) },
    Math.max(0, until - deps.clock.now()),
    { signal: call.signal, onProgress: progressFor(driven) },
  );
  if (call.signal.aborted) {
    await park(deps, driven, owner);
    call.signal.throwIfAborted();
  }
  if (verdict.outcome === 'failed' && !verdict.gone) {
    // The inquiry node could not be read: the approval may still come. Nothing ran; try again later.
    await park(deps, driven, owner);
    return refusalResult('unreadable', { ...shown, key: call.idempotencyKey, detail: verdict.detail });
  }
  const inquiryId = verdict.inquiryId ?? op.inquiryId;
  return runOwned(deps, driven, owner, async () => {
    if (verdict.outcome === 'pending') {
      return { kind: 'pending', grantId, ...(inquiryId ? { inquiryId } : {}) };
    }
    return settleAndRun(deps, driven as GatedCall, grantId, verdict, audit);
  });
}
