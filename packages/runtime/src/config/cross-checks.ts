import { type TimeoutTiers, tierOrderProblems } from '@hitl/protocol';
import type { Env } from './env-vars.js';
import { type VapidKeys, vapidProblems } from './vapid-keys.js';

/** One problem that involves more than one variable, reported on `name`. */
export interface CrossProblem {
  name: keyof Env;
  message: string;
  /** The message already names its variables with their values (print it as it is). */
  named?: boolean;
}

/**
 * A rule over several variables. It runs whenever every variable it reads parsed, whatever else is
 * wrong, so one start-up names every problem at once.
 */
export interface CrossCheck {
  vars: readonly (keyof Env)[];
  problems(env: Env): CrossProblem[];
}

const TIER_VARS = {
  deviceMs: 'HITL_DEVICE_TIMEOUT_MS',
  serviceMs: 'HITL_SERVICE_TIMEOUT_MS',
  clientMs: 'HITL_CLIENT_TIMEOUT_MS',
} as const satisfies Record<keyof TimeoutTiers, keyof Env>;

/** The tiers from the parsed variables. */
export const tiersOf = (env: Env): TimeoutTiers => ({
  deviceMs: env.HITL_DEVICE_TIMEOUT_MS,
  serviceMs: env.HITL_SERVICE_TIMEOUT_MS,
  clientMs: env.HITL_CLIENT_TIMEOUT_MS,
});

/** Start-up refuses device >= service or service >= client, naming both variables and their values. */
const tierOrder: CrossCheck = {
  vars: Object.values(TIER_VARS),
  problems(env) {
    const tiers = tiersOf(env);
    return tierOrderProblems(tiers).map(({ lower, upper }) => ({
      name: TIER_VARS[lower],
      message: `${TIER_VARS[lower]}=${tiers[lower]} must be less than ${TIER_VARS[upper]}=${tiers[upper]}`,
      named: true,
    }));
  },
};

/** `needed` must be set when `given` is (even when `given` is itself wrong: both are named). */
const requiredWith = (needed: keyof Env, given: keyof Env): CrossCheck => ({
  vars: [needed],
  problems: (env) =>
    env[given] !== undefined && env[needed] === undefined
      ? [{ name: needed, message: `required when ${given} is set` }]
      : [],
});

const VAPID_VARS = {
  publicKey: 'HITL_VAPID_PUBLIC_KEY',
  privateKey: 'HITL_VAPID_PRIVATE_KEY',
  subject: 'HITL_VAPID_SUBJECT',
} as const satisfies Record<keyof VapidKeys, keyof Env>;

/** The configured VAPID keys: all three variables or none (then the node makes its own). */
export function vapidOf(env: Env): VapidKeys | undefined {
  const {
    HITL_VAPID_PUBLIC_KEY: publicKey,
    HITL_VAPID_PRIVATE_KEY: privateKey,
    HITL_VAPID_SUBJECT: subject,
  } = env;
  return publicKey && privateKey && subject ? { publicKey, privateKey, subject } : undefined;
}

/** All three VAPID variables or none; three given must be a matching pair and a contact. */
const vapid: CrossCheck = {
  vars: Object.values(VAPID_VARS),
  problems(env) {
    const fields = Object.keys(VAPID_VARS) as (keyof VapidKeys)[];
    const missing = fields.filter((field) => env[VAPID_VARS[field]] === undefined);
    if (missing.length === fields.length) return [];
    if (missing.length > 0) {
      return missing.map((field) => ({
        name: VAPID_VARS[field],
        message: 'required when any HITL_VAPID_* variable is set (all three or none)',
      }));
    }
    const keys = vapidOf(env);
    return keys
      ? vapidProblems(keys).map(({ field, message }) => ({ name: VAPID_VARS[field], message }))
      : [];
  },
};

export const CROSS_CHECKS: readonly CrossCheck[] = [
  tierOrder,
  requiredWith('HITL_EMAIL_FROM', 'HITL_SMTP_URL'),
  requiredWith('HITL_LLM_MODEL', 'HITL_LLM_URL'),
  requiredWith('HITL_SLACK_SIGNING_SECRET', 'HITL_SLACK_BOT_TOKEN'),
  requiredWith('HITL_SLACK_BOT_TOKEN', 'HITL_SLACK_SIGNING_SECRET'),
  vapid,
];
