/** The least confidence at which a machine may approve an action (exactly this value passes). */
export const APPROVAL_THRESHOLD = 0.7;

export type GateResult = { ok: true; confidence: number } | { ok: false; reason: string };

/** Why `confidence` is not a usable number in 0..1, or `null` when it is one. */
export function confidenceProblem(confidence: unknown): string | null {
  if (confidence === undefined || confidence === null) return 'no confidence was given';
  if (typeof confidence !== 'number') return `confidence is a ${typeof confidence}, not a number`;
  if (Number.isNaN(confidence)) return 'confidence is NaN';
  if (confidence < 0 || confidence > 1) return `confidence ${confidence} is outside 0..1`;
  return null;
}

/**
 * The gate every machine approval passes, whatever the strategy: the inquiry is not critical and
 * the deciding machine's confidence is a number in 0..1 of at least 0.7. Missing or invalid
 * confidence (NaN, a boolean, a string, out of range) never approves.
 *
 * @example
 * approvalGate(false, 0.7); // { ok: true, confidence: 0.7 }
 * approvalGate(true, 0.99); // { ok: false, reason: 'the inquiry is critical: ...' }
 */
export function approvalGate(critical: boolean, confidence: unknown): GateResult {
  if (critical) return { ok: false, reason: 'the inquiry is critical: no machine approves it' };
  const problem = confidenceProblem(confidence);
  if (problem) return { ok: false, reason: `${problem}, so no machine approves it` };
  const value = confidence as number;
  if (value < APPROVAL_THRESHOLD) {
    return { ok: false, reason: `confidence ${value} is below ${APPROVAL_THRESHOLD}` };
  }
  return { ok: true, confidence: value };
}

/** A confidence worth recording: the number when valid, else undefined. */
export function validConfidence(confidence: unknown): number | undefined {
  return confidenceProblem(confidence) === null ? (confidence as number) : undefined;
}
