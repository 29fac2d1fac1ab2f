import { z } from 'zod';
import { depthProblemField, jsonDepthProblem } from './json-depth.js';
import { LIMITS, utf8Bytes } from './limits.js';
import { type WebAuthnAssertion, WebAuthnAssertionSchema } from './passkeys.js';

/**
 * What people may add to an approval (and to any refusal): a reason the agent reads, edited
 * arguments, a standing approval. Pure and browser-safe: the node, the proxy, the web terminal and
 * `hitl answer` apply the same rules.
 */

/** Why a person rejected or declined: the agent reads it ("They said: …"). */
export const ReasonSchema = z
  .string()
  .max(LIMITS.reasonChars, `reason: at most ${LIMITS.reasonChars} characters`)
  .describe('Why, in the words of the person (the agent reads it).');

/** Why a JSON object is too deep or too big to hold, or null. Depth first: nothing walks it before. */
export function boundedObjectProblem(
  value: unknown,
  maxBytes: number = LIMITS.argumentsBytes,
): string | null {
  const deep = jsonDepthProblem(value, LIMITS.argumentsDepth);
  if (deep) {
    return `${depthProblemField(deep, 2)} is nested deeper than ${LIMITS.argumentsDepth} levels`;
  }
  if (utf8Bytes(JSON.stringify(value)) > maxBytes) return `over ${maxBytes} bytes of JSON`;
  return null;
}

/** A JSON object of arguments, at most `LIMITS.argumentsBytes` and `LIMITS.argumentsDepth` levels. */
export const ArgumentsObjectSchema = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const problem = boundedObjectProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ additionalProperties: true });

/** `editable`: every argument (`true`) or the top-level names listed. */
export const EditableSchema = z
  .union([
    z.literal(true),
    z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(LIMITS.editableNames, `at most ${LIMITS.editableNames} names`),
  ])
  .describe(
    'Approvals only: the person may edit the arguments before approving: true for every argument, or a list of top-level argument names.',
  );
export type Editable = z.infer<typeof EditableSchema>;

/** "Approve, and allow the same for N minutes" (only calls whose `match` arguments are exactly these). */
export const AllowForSchema = z
  .object({
    minutes: z
      .number()
      .int('must be a whole number of minutes')
      .min(1, 'must be at least 1 minute')
      .max(LIMITS.standingMinutesMax, `must be at most ${LIMITS.standingMinutesMax} minutes`),
    match: ArgumentsObjectSchema.refine(
      (m) => Object.keys(m).length <= LIMITS.editableNames,
      `at most ${LIMITS.editableNames} names`,
    ).optional(),
  })
  .strict();
export type AllowFor = z.infer<typeof AllowForSchema>;

/** What an answer may carry beside `response`. */
export const answerExtrasShape = {
  reason: ReasonSchema.optional(),
  /** Approvals only, with `response: "approve"`: new values for editable arguments. */
  arguments: ArgumentsObjectSchema.optional(),
  /** Approvals only, with `response: "approve"`: a standing approval for later calls. */
  allowFor: AllowForSchema.optional(),
  /** A passkey approval's WebAuthn assertion (for an approve of a `requirePasskey` inquiry). */
  webauthn: WebAuthnAssertionSchema.optional(),
};
export interface AnswerExtras {
  reason?: string;
  arguments?: Record<string, unknown>;
  allowFor?: AllowFor;
  webauthn?: WebAuthnAssertion;
}

/** JSON with object keys sorted: two values are the same JSON exactly when their texts are equal. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** True when `a` and `b` are the same JSON value (key order aside). */
export function sameJson(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

/** The top-level names a person may edit: the listed ones, or (`true`) every name the schema or the call has. */
export function editableNames(
  editable: Editable | undefined,
  action: { arguments: Record<string, unknown>; inputSchema?: Record<string, unknown> } | undefined,
): string[] {
  if (editable === undefined || !action) return [];
  if (editable !== true) return editable;
  const properties = action.inputSchema?.properties;
  const declared = properties && typeof properties === 'object' ? Object.keys(properties) : [];
  return [...new Set([...declared, ...Object.keys(action.arguments)])];
}

export type EditOutcome =
  | { ok: true; arguments: Record<string, unknown>; changed: string[] }
  | { ok: false; problem: string };

/**
 * The arguments after a person's edit: `edit` holds new values for top-level names (a name left out
 * keeps its value). A name that is not editable may appear only with its unchanged value. `changed`
 * lists the names whose value differs from the asked call's, in the order of `edit`.
 */
export function applyEdit(
  original: Record<string, unknown>,
  edit: Record<string, unknown>,
  editable: readonly string[],
): EditOutcome {
  const allowed = new Set(editable);
  const changed: string[] = [];
  for (const [name, value] of Object.entries(edit)) {
    if (Object.hasOwn(original, name) && sameJson(original[name], value)) continue;
    if (!allowed.has(name)) return { ok: false, problem: `arguments.${name}: not editable on this approval` };
    changed.push(name);
  }
  return { ok: true, arguments: { ...original, ...edit }, changed };
}

/** True when every name of `match` has exactly that value in `args` (no match: every call). */
export function matchesArguments(
  match: Record<string, unknown> | undefined,
  args: Record<string, unknown>,
): boolean {
  if (!match) return true;
  return Object.entries(match).every(
    ([name, value]) => Object.hasOwn(args, name) && sameJson(args[name], value),
  );
}

/** What decides whether an approval may become a standing approval. */
export interface StandingFacts {
  kind: 'question' | 'approval';
  critical: boolean;
  quorum?: number;
  standing?: boolean;
  action?: unknown;
}

/** Why an approval may not be allowed for a while, or null when it may. */
export function standingProblem(inquiry: StandingFacts): string | null {
  if (inquiry.kind !== 'approval' || !inquiry.action) {
    return 'only an approval of an exact action can be allowed for a while';
  }
  if (inquiry.critical)
    return 'a critical action is never allowed for a while: each call needs its own approval';
  if (inquiry.quorum !== undefined)
    return 'an approval that needs several people is never allowed for a while';
  if (inquiry.standing === false) return 'the policy does not allow this action for a while';
  return null;
}
