import type { Deadlines, TimeoutTiers } from '@hitl/protocol';

/**
 * Server-time deadlines of a new inquiry. A shorter `timeoutMs` moves the service deadline in and
 * scales the device deadline in proportion, so the device tier still fires first.
 */
export function computeDeadlines(now: number, tiers: TimeoutTiers, timeoutMs?: number): Deadlines {
  const serviceMs = Math.min(timeoutMs ?? tiers.serviceMs, tiers.serviceMs);
  const deviceMs = Math.round((tiers.deviceMs * serviceMs) / tiers.serviceMs);
  return { deviceAt: now + deviceMs, serviceAt: now + serviceMs, clientAt: now + tiers.clientMs };
}

/** A device may report its timer from its deadline on, allowing this much clock skew. */
export const DEVICE_SKEW_MS = 1000;

export function deviceTimeoutAllowed(deadlines: Deadlines, now: number): boolean {
  return now >= deadlines.deviceAt - DEVICE_SKEW_MS;
}
