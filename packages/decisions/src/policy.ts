import { readFileSync } from 'node:fs';
import {
  describeZodError,
  type FallbackStrategy,
  FallbackStrategySchema,
  type Inquiry,
} from '@hitl/protocol';
import { z } from 'zod';
import type { FallbackTrigger } from './types.js';

/** A server default may name any strategy but `approve`: YOLO runs only when the agent asks for it. */
const DefaultStrategySchema = FallbackStrategySchema.exclude(['approve'], {
  error: 'approve cannot be a server default: it runs only when the agent asks for it',
});
/** `fail_closed` is where every forbidden strategy lands, so it cannot be forbidden itself. */
const ForbiddenSchema = FallbackStrategySchema.exclude(['fail_closed'], {
  error: 'fail_closed cannot be forbidden: it is where forbidden strategies fall back to',
});

export const PolicyRuleSchema = z
  .object({
    /** Strategies for ordinary questions whose `fallback` names none (critical and approvals: fail_closed). */
    defaults: z
      .object({ onTimeout: DefaultStrategySchema.optional(), onRefusal: DefaultStrategySchema.optional() })
      .strict()
      .optional(),
    /** Strategies this scope may not use; asking for one fails closed. */
    forbid: z.array(ForbiddenSchema).optional(),
    /** Propose a suggested answer to inquiries that arrive without a default answer. */
    suggest: z.boolean().optional(),
  })
  .strict();
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

/**
 * The server's fallback policy (`HITL_POLICY_FILE`): global rules, then per user id, then per agent
 * token name (the `name` a token was created with). The narrower scope's defaults and `suggest` win;
 * forbidden strategies add up across scopes.
 */
export const PolicyConfigSchema = PolicyRuleSchema.extend({
  users: z.record(z.string(), PolicyRuleSchema).optional(),
  tokens: z.record(z.string(), PolicyRuleSchema).optional(),
}).strict();
export type PolicyConfig = z.infer<typeof PolicyConfigSchema>;

/** The parts of an inquiry the policy reads. */
export type PolicyInquiry = Pick<Inquiry, 'kind' | 'critical' | 'fallback' | 'userId' | 'asker'>;

export interface StrategyChoice {
  /** What runs. */
  strategy: FallbackStrategy;
  /** What the inquiry or the server asked for. */
  requested: FallbackStrategy;
  /** Set when `requested` is forbidden for this user or token (then `strategy` is fail_closed). */
  forbidden?: string;
}

function scopes(policy: PolicyConfig, inquiry: PolicyInquiry): { rule: PolicyRule; name: string }[] {
  const found = [{ rule: policy as PolicyRule, name: 'this server' }];
  const user = policy.users?.[inquiry.userId];
  if (user) found.push({ rule: user, name: `user ${inquiry.userId}` });
  const token = inquiry.asker.name ? policy.tokens?.[inquiry.asker.name] : undefined;
  if (token) found.push({ rule: token, name: `token "${inquiry.asker.name}"` });
  return found;
}

/** The only strategies a critical inquiry gets, whatever its `fallback` says. */
export const CRITICAL_STRATEGIES: readonly FallbackStrategy[] = ['fail_closed', 'preset_text'];

/**
 * Why `strategy` may not answer `inquiry`, or `null` when it may: a critical inquiry never gets a
 * machine answer, so only `fail_closed` and `preset_text` apply to it.
 */
export function criticalProblem(
  inquiry: Pick<Inquiry, 'critical'>,
  strategy: FallbackStrategy,
): string | null {
  if (!inquiry.critical || CRITICAL_STRATEGIES.includes(strategy)) return null;
  return `${strategy} does not apply to a critical inquiry (only fail_closed or preset_text do; no machine answers it)`;
}

/**
 * Which strategy runs when `trigger` ends an inquiry: the inquiry's own `fallback`, else
 * `fail_closed` for critical inquiries and approvals, else the narrowest server default, else
 * `preset_text`. A strategy forbidden in any scope, or any machine strategy for a critical inquiry,
 * becomes `fail_closed` (and `forbidden` says why).
 */
export function chooseStrategy(
  policy: PolicyConfig,
  inquiry: PolicyInquiry,
  trigger: FallbackTrigger,
): StrategyChoice {
  const key = trigger === 'refusal' ? 'onRefusal' : 'onTimeout';
  const found = scopes(policy, inquiry);
  const serverDefault = found.reduce<FallbackStrategy | undefined>(
    (d, s) => s.rule.defaults?.[key] ?? d,
    undefined,
  );
  const requested =
    inquiry.fallback?.[key] ??
    (inquiry.critical || inquiry.kind === 'approval' ? 'fail_closed' : (serverDefault ?? 'preset_text'));
  const critical = criticalProblem(inquiry, requested);
  if (critical) return { strategy: 'fail_closed', requested, forbidden: critical };
  const forbiddenBy = found.find((s) => s.rule.forbid?.includes(requested as never));
  if (forbiddenBy) {
    return {
      strategy: 'fail_closed',
      requested,
      forbidden: `${requested} is forbidden for ${forbiddenBy.name}`,
    };
  }
  return { strategy: requested, requested };
}

/** True when the narrowest scope that says anything about suggestions turns them on. */
export function suggestionsEnabled(policy: PolicyConfig, inquiry: PolicyInquiry): boolean {
  return scopes(policy, inquiry).reduce((on, s) => s.rule.suggest ?? on, false);
}

/** Adds globally forbidden strategies (`HITL_FORBID_STRATEGIES`) to a policy. */
export function withForbidden(policy: PolicyConfig, forbid: FallbackStrategy[]): PolicyConfig {
  if (forbid.length === 0) return policy;
  const all = [...new Set([...(policy.forbid ?? []), ...forbid])].filter((s) => s !== 'fail_closed');
  return { ...policy, forbid: all as PolicyRule['forbid'] };
}

/**
 * Reads and checks a policy file (JSON).
 * @throws Error naming the bad field.
 */
export function loadPolicyFile(path: string): PolicyConfig {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(
      `cannot read a JSON policy from ${path}: ${error instanceof Error ? error.message : error}`,
    );
  }
  const parsed = PolicyConfigSchema.safeParse(json);
  if (!parsed.success) throw new Error(`bad policy in ${path}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
