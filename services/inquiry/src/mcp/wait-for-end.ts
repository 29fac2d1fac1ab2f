import { type Abortable, HeldCalls } from '@hitl/mcp-http';
import type { Inquiry } from '@hitl/protocol';
import { sleep } from '../core/ports.js';
import { isStoreOutage } from '../core/store-outage.js';
import type { CallContext, CallExtra } from './call-context.js';
import type { Heartbeat } from './heartbeat.js';

/** While the store is away a held call pauses this long between tries, in ms. */
const OUTAGE_PAUSE_MS = 500;

/** How long a held call's reference is kept: until a minute past the hold's end (at least a second). */
export function callReferenceTtl(ctx: CallContext, deadline: number): number {
  return Math.max(1000, deadline - ctx.clock.now() + 60_000);
}

/**
 * Suspends a call on a pending inquiry until it ends, the caller goes away, the node drains, or
 * `deadline`, and returns the inquiry as the store has it then (null when it no longer exists). With
 * `cancelsInquiry` a `notifications/cancelled` for this call (on any node) cancels the inquiry; a
 * task's `tasks/result` wait does not (only `tasks/cancel` does). Either way a draining node releases
 * the call. A `heartbeat` is stopped as it returns. It takes the id, not the inquiry: a held wait keeps
 * nothing of the inquiry but its id (a `get_inquiry` or `tasks/result` wait reads a copy of its own,
 * which would otherwise stay for the whole wait beside the one the node's timer keeps).
 */
export async function waitForEnd(
  ctx: CallContext,
  inquiryId: string,
  extra: CallExtra,
  deadline: number,
  {
    cancelsInquiry,
    heartbeat,
    remembered = false,
  }: { cancelsInquiry: boolean; heartbeat?: Heartbeat | undefined; remembered?: boolean },
): Promise<Inquiry | null> {
  const key = HeldCalls.key(ctx.tokenKey, extra.requestId);
  // A direct call brings its own abort; a call through the SDK gets a controller that follows the
  // SDK's signal.
  const controller = extra.abort ?? new AbortController();
  const unfollow = extra.signal && !extra.abort ? follow(extra.signal, controller) : undefined;
  const call = ctx.heldCalls.hold(key, inquiryId, cancelsInquiry, controller);
  const { signal } = controller;
  try {
    if (cancelsInquiry && !remembered) {
      // A cancel for this call may reach another node: let it find the inquiry through the store.
      // Best effort: while the store is away the call still waits, it just cannot be cancelled remotely.
      ctx.store.rememberCall(key, inquiryId, callReferenceTtl(ctx, deadline)).catch(() => undefined);
    }
    for (;;) {
      try {
        return await ctx.service.wait(inquiryId, signal, deadline);
      } catch (error) {
        // A store outage (Redis restarting) pauses the wait instead of failing the call.
        if (!isStoreOutage(error) || signal.aborted || ctx.clock.now() >= deadline) throw error;
        await sleep(ctx.clock, OUTAGE_PAUSE_MS);
      }
    }
  } finally {
    heartbeat?.stop();
    unfollow?.();
    ctx.heldCalls.release(key, call);
  }
}

/** Aborts `controller` when the caller's `signal` aborts; returns what stops following it. */
function follow(signal: AbortSignal, controller: Abortable): () => void {
  const abort = () => controller.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return () => signal.removeEventListener('abort', abort);
}
