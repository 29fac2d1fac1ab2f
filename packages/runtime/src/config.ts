import { withForbidden } from '@hitl/decisions';
import type { z } from 'zod';
import { CROSS_CHECKS, tiersOf, vapidOf } from './config/cross-checks.js';
import { type Env, EnvVars, isSecretVar } from './config/env-vars.js';
import { redactUrl, scrub, urlPassword } from './config/redact.js';

/**
 * The environment, checked field by field (`config/env-vars.ts`) and across fields
 * (`config/cross-checks.ts`: each rule runs whenever the variables it reads parsed, so every problem
 * is found in one pass), then shaped into the {@link Config} the node runs on.
 */
const ConfigSchema = CROSS_CHECKS.reduce(
  (schema, check) =>
    schema.superRefine(
      (env, ctx) => {
        for (const { name, message, named } of check.problems(env)) {
          ctx.addIssue({ code: 'custom', path: [name], message, params: { named: named === true } });
        }
      },
      { when: (payload) => payload.issues.every((issue) => !check.vars.some((v) => v === issue.path?.[0])) },
    ),
  EnvVars,
).transform(toConfig);

/** What the node runs on: the checked environment. */
export type Config = z.output<typeof ConfigSchema>;

/** `T` with each member that may be undefined made optional (`redisUrl?: string`), for callers that build one. */
type UnsetOptional<T> = {
  [K in keyof T as undefined extends T[K] ? K : never]?: T[K];
} & { [K in keyof T as undefined extends T[K] ? never : K]: T[K] };

/** The same object, typed with its maybe-undefined members optional. */
const unsetOptional = <T>(value: T) => value as { [K in keyof UnsetOptional<T>]: UnsetOptional<T>[K] };

function toConfig(e: Env) {
  const vapid = vapidOf(e);
  return unsetOptional({
    port: e.PORT,
    host: e.HOST,
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES,
    tiers: tiersOf(e),
    /** The longest answer window (`answerWithinMs`, a task's ttl) an inquiry may have, in ms. */
    maxAnswerWindowMs: e.HITL_MAX_ANSWER_WINDOW_MS,
    secret: e.HITL_SECRET,
    stateDir: e.HITL_STATE_DIR,
    /** The audit checkpoint key's seed (`HITL_AUDIT_KEY`); unset: `<stateDir>/audit-key`. */
    auditKey: e.HITL_AUDIT_KEY,
    /**
     * The store without Redis: `sqlite` (durable, `<stateDir>/hitl.db`) or `memory` (gone on restart).
     * Ignored when `REDIS_URL` or `REDIS_CLUSTER_NODES` is set.
     */
    embeddedStore: e.HITL_STORE,
    decisionUrl: e.HITL_DECISION_URL,
    allowedHosts: e.HITL_ALLOWED_HOSTS,
    allowedOrigins: e.HITL_ALLOWED_ORIGINS,
    ratePerMin: e.HITL_RATE_PER_MIN,
    /** Open connections per process (`HITL_MAX_CONNECTIONS`; default: the open-file limit less a margin). */
    maxConnections: e.HITL_MAX_CONNECTIONS,
    maxPendingPerUser: e.HITL_MAX_PENDING_PER_USER,
    /** The longest standing approval (`allowFor`) a person may make, in ms. */
    maxStandingMs: e.HITL_MAX_STANDING_MS,
    /** Live device sockets one token may hold; the oldest beyond it are dropped. */
    maxSocketsPerToken: e.HITL_MAX_SOCKETS_PER_TOKEN,
    /** Socket.IO handshakes per minute per token (an address gets five times it); 0: no limit. */
    handshakesPerMin: e.HITL_HANDSHAKES_PER_MIN,
    /** How long a pairing code lives (`HITL_PAIRING_TTL_MS`, 1 s .. 10 min). */
    pairingTtlMs: e.HITL_PAIRING_TTL_MS,
    heartbeatMs: e.HITL_HEARTBEAT_MS,
    retentionMs: e.HITL_RETENTION_MS,
    sweepMs: e.HITL_SWEEP_MS,
    /** The fallback re-read of revocations behind the change feed (`HITL_REVOCATION_POLL_MS`). */
    revocationPollMs: e.HITL_REVOCATION_POLL_MS,
    drainMs: e.HITL_DRAIN_MS,
    texts: { timeout: e.HITL_TIMEOUT_TEXT, refusal: e.HITL_REFUSAL_TEXT },
    nodeId: e.HITL_NODE_ID,
    /** The model behind the `agent` strategy (OpenAI-compatible); rule-based when unset. */
    llm:
      e.HITL_LLM_URL && e.HITL_LLM_MODEL
        ? {
            url: e.HITL_LLM_URL,
            model: e.HITL_LLM_MODEL,
            ...(e.HITL_LLM_API_KEY ? { apiKey: e.HITL_LLM_API_KEY } : {}),
          }
        : undefined,
    /** Fallback policy: `HITL_POLICY_FILE` plus `HITL_FORBID_STRATEGIES`. */
    policy: withForbidden(e.HITL_POLICY_FILE ?? {}, e.HITL_FORBID_STRATEGIES),
    /** About how many records the decision audit log keeps. */
    decisionLogMax: e.HITL_DECISION_LOG_MAX,
    /** Web Push: the configured VAPID keys (else generated, see push/load-vapid.ts) and the http: hosts allowed. */
    push: { ...(vapid ? { vapid } : {}), allowHttpHosts: e.HITL_PUSH_ALLOW_HTTP_HOSTS },
    /** The directory of people, teams and webhooks (`HITL_DIRECTORY_FILE`, YAML or JSON). */
    directoryFile: e.HITL_DIRECTORY_FILE,
    /** The address people reach this service at (answer links); default: the node's own URL. */
    publicUrl: e.HITL_PUBLIC_URL,
    /** Questions in the agent's own chat (MCP elicitation): on unless `HITL_ELICITATION=off`. */
    elicitation: e.HITL_ELICITATION === 'on',
    /** How long an unused MCP session lives (`HITL_MCP_SESSION_TTL_MS`, 24 h); each use renews it. */
    mcpSessionTtlMs: e.HITL_MCP_SESSION_TTL_MS,
    /** Mail for people whose directory entry asks for it: `HITL_SMTP_URL` and `HITL_EMAIL_FROM`. */
    email:
      e.HITL_SMTP_URL && e.HITL_EMAIL_FROM
        ? { smtpUrl: e.HITL_SMTP_URL, from: e.HITL_EMAIL_FROM }
        : undefined,
    /** Webhooks: hosts they may reach although loopback or private, and the first retry's delay. */
    /**
     * Webhook targets allowed although private, the first retry's delay, and the memory bound of waiting
     * retries (their bodies, per webhook URL and per user).
     */
    webhooks: {
      allowHosts: e.HITL_WEBHOOK_ALLOW_HOSTS,
      backoffMs: e.HITL_WEBHOOK_BACKOFF_MS,
      retryCaps: {
        perWebhookBytes: e.HITL_WEBHOOK_RETRY_BYTES,
        perUserBytes: e.HITL_WEBHOOK_RETRY_BYTES_PER_USER,
      },
    },
    /** Slack as a device: the bot token, the signing secret and the Web API's base URL (docs/SLACK.md). */
    slack:
      e.HITL_SLACK_BOT_TOKEN && e.HITL_SLACK_SIGNING_SECRET
        ? {
            botToken: e.HITL_SLACK_BOT_TOKEN,
            signingSecret: e.HITL_SLACK_SIGNING_SECRET,
            apiUrl: e.HITL_SLACK_API_URL,
          }
        : undefined,
    logLevel: e.LOG_LEVEL,
  });
}

/** Start-up refuses a bad environment with this; its message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Reads and checks the whole configuration from the environment. An empty value counts
 * as unset.
 * @throws ConfigError naming every bad variable at once, each with what is wrong and its value, except
 *   that a secret's value is never shown and a URL's password shows as `***`
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const defined: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value) defined[name] = value;
  const parsed = ConfigSchema.safeParse(defined);
  if (parsed.success) return parsed.data;
  const lines = new Set(parsed.error.issues.map((issue) => describeIssue(issue, defined)));
  throw new ConfigError(scrub(`invalid configuration:\n  ${[...lines].join('\n  ')}`, secretsIn(defined)));
}

function describeIssue(issue: z.core.$ZodIssue, env: Record<string, string>): string {
  if (issue.code === 'custom' && issue.params?.named === true) return issue.message;
  const name = String(issue.path[0]);
  return `${shown(name, env[name])}: ${issue.message}`;
}

/** `NAME="value"` as a message may show it: a secret that is set by name alone, a URL without its password. */
function shown(name: string, value: string | undefined): string {
  if (value && isSecretVar(name)) return name;
  return `${name}=${JSON.stringify(redactUrl(value ?? '', { bare: name.endsWith('_URL') }))}`;
}

/** Every secret the environment holds for us: secret variables' values and URLs' passwords. */
function secretsIn(env: Record<string, string>): string[] {
  return Object.keys(EnvVars.shape).flatMap((name) => {
    const value = env[name];
    if (!value) return [];
    if (isSecretVar(name)) return [value];
    const password = urlPassword(value, { bare: name.endsWith('_URL') });
    return password ? [password, decoded(password)] : [];
  });
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
