import { z } from 'zod';

/** The smallest tier, in ms. */
export const MIN_TIER_MS = 1000;
/** The largest service tier, in ms (24 h). */
export const MAX_SERVICE_TIER_MS = 24 * 60 * 60 * 1000;

/** The shortest answer window (`answerWithinMs`), in ms. */
export const MIN_ANSWER_WINDOW_MS = 1000;
/** The default cap on an answer window (`HITL_MAX_ANSWER_WINDOW_MS`): 7 days. */
export const DEFAULT_MAX_ANSWER_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** The highest cap an operator may set on an answer window: 366 days. */
export const MAX_ANSWER_WINDOW_MS = 366 * 24 * 60 * 60 * 1000;

/** Tier 1 (device countdown) < tier 2 (service resolves) < tier 3 (what MCP clients must allow). */
export const TimeoutTiersSchema = z.object({
  deviceMs: z.number().int().min(MIN_TIER_MS),
  serviceMs: z.number().int().min(MIN_TIER_MS).max(MAX_SERVICE_TIER_MS),
  clientMs: z.number().int().min(MIN_TIER_MS),
});
export type TimeoutTiers = z.infer<typeof TimeoutTiersSchema>;

export const DEFAULT_TIERS: TimeoutTiers = { deviceMs: 30_000, serviceMs: 50_000, clientMs: 90_000 };

/** A pair of tiers out of order: `lower` must be strictly below `upper`. */
export interface TierOrderProblem {
  lower: keyof TimeoutTiers;
  upper: keyof TimeoutTiers;
}

/** Lists every ordering rule the tiers break (empty when device < service < client). */
export function tierOrderProblems(tiers: TimeoutTiers): TierOrderProblem[] {
  const problems: TierOrderProblem[] = [];
  if (tiers.deviceMs >= tiers.serviceMs) problems.push({ lower: 'deviceMs', upper: 'serviceMs' });
  if (tiers.serviceMs >= tiers.clientMs) problems.push({ lower: 'serviceMs', upper: 'clientMs' });
  return problems;
}
