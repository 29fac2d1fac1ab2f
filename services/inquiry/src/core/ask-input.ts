import {
  type Escalation,
  HitlError,
  type InquiryContent,
  InquiryContentSchema,
  type SendInquiryInput,
  type TimeoutTiers,
} from '@hitl/protocol';
import type { ResolvedAudience } from '../directory/audience.js';
import { inputSchemaProblem } from './input-schema.js';

/** The node's limits on what an ask may set. */
export interface AskLimits {
  tiers: TimeoutTiers;
  maxAnswerWindowMs: number;
}

/**
 * Checks an ask against the node's limits before its audience is read: its timeouts, and the schema
 * of an editable action.
 * @throws HitlError `invalid_input` naming the field.
 */
export function checkAskLimits(input: SendInquiryInput, limits: AskLimits): void {
  if (input.timeoutMs !== undefined && input.timeoutMs > limits.tiers.serviceMs) {
    throw new HitlError(
      'invalid_input',
      `timeoutMs: must be at most ${limits.tiers.serviceMs} (the service timeout)`,
    );
  }
  if (input.answerWithinMs !== undefined && input.answerWithinMs > limits.maxAnswerWindowMs) {
    throw new HitlError(
      'invalid_input',
      `answerWithinMs: must be at most ${limits.maxAnswerWindowMs} (the longest answer window this service allows)`,
    );
  }
  const schema = input.editable === undefined ? undefined : input.action?.inputSchema;
  const schemaProblem = schema && inputSchemaProblem(schema);
  if (schemaProblem) throw new HitlError('invalid_input', schemaProblem);
}

/**
 * A quorum needs at least as many people asked as approvals.
 * @throws HitlError `invalid_input`
 */
export function checkQuorum(input: SendInquiryInput, askedCount: number): void {
  if (input.quorum !== undefined && input.quorum > askedCount) {
    throw new HitlError(
      'invalid_input',
      `quorum: ${input.quorum} approvals need at least ${input.quorum} people in the audience; it has ${askedCount}`,
    );
  }
}

/**
 * The asker's fields of an inquiry, as `InquiryContentSchema` declares them: each is copied from the
 * call's input (a content field the input lacks does not compile).
 */
const CONTENT_KEYS = InquiryContentSchema.keyof().options;

/** What the asker asks, from the call's input, with the defaults filled in. */
export function inquiryContent(input: SendInquiryInput): InquiryContent {
  return {
    ...pickDefined(input, CONTENT_KEYS),
    question: input.question,
    format: input.format ?? (input.questions ? 'form' : 'text'),
    kind: input.kind ?? 'question',
    // A quorum is a two-person rule for something dangerous, and a passkey approval is proof of a
    // person: no machine approves either, whatever the fallback (they time out rejected).
    critical: (input.critical ?? false) || input.quorum !== undefined || input.requirePasskey === true,
  };
}

/**
 * When and to whom a team's question escalates: `afterMs` from now (absent: half the time it has), if
 * that is before its end; otherwise it ends first and never escalates.
 */
export function planEscalation(
  addressed: ResolvedAudience,
  now: number,
  endsAt: number,
): Escalation | undefined {
  const plan = addressed.escalation;
  if (!plan) return undefined;
  const at = now + (plan.afterMs ?? Math.floor((endsAt - now) / 2));
  if (at >= endsAt) return undefined;
  return { at, users: plan.users, ...(plan.team ? { team: plan.team } : {}) };
}

/** The `keys` of `source` that are defined. */
function pickDefined<T extends object, K extends keyof T>(
  source: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const picked: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key];
  return picked;
}

/** `value` without its undefined fields. */
export function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
