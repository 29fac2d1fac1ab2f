import type { Deadlines, TimeoutTiers } from '@hitl/protocol';

/**
 * Server-time deadlines of a new inquiry. A shorter `timeoutMs` moves the service deadline in and
 * scales the device deadline in proportion, so the device tier still fires first.
 *
 * An answer window (`answerWithinMs`) longer than the hold keeps the inquiry open past the call:
 * every tier then points at `answerBy` (the service times it out then; no device timer fires), and
 * the call itself returns `pending` at the end of its hold (`holdMs`). A window no longer than the
 * hold is the hold, cut to the window.
 */
export function computeDeadlines(
  now: number,
  tiers: TimeoutTiers,
  timeoutMs?: number,
  answerWithinMs?: number,
): Deadlines {
  const hold = holdMs(tiers, timeoutMs);
  if (answerWithinMs !== undefined && answerWithinMs > hold) {
    const answerBy = now + answerWithinMs;
    return {
      deviceAt: answerBy,
      serviceAt: answerBy,
      clientAt: answerBy + tiers.clientMs - tiers.serviceMs,
      answerBy,
    };
  }
  const serviceMs = Math.min(answerWithinMs ?? hold, hold);
  const deviceMs = Math.round((tiers.deviceMs * serviceMs) / tiers.serviceMs);
  return { deviceAt: now + deviceMs, serviceAt: now + serviceMs, clientAt: now + tiers.clientMs };
}

/** How long `send_inquiry` holds the call: `timeoutMs`, capped by the service tier. */
export function holdMs(tiers: TimeoutTiers, timeoutMs?: number): number {
  return Math.min(timeoutMs ?? tiers.serviceMs, tiers.serviceMs);
}

/** A device may report its timer from its deadline on, allowing this much clock skew. */
export const DEVICE_SKEW_MS = 1000;

/** Tier 1 may end an inquiry from its device deadline on; never one with an answer window. */
export function deviceTimeoutAllowed(deadlines: Deadlines, now: number): boolean {
  return deadlines.answerBy === undefined && now >= deadlines.deviceAt - DEVICE_SKEW_MS;
}
