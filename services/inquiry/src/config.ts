import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadPolicyFile, type PolicyConfig, withForbidden } from '@hitl/decision-agent';
import {
  DEFAULT_MAX_ANSWER_WINDOW_MS,
  FallbackStrategySchema,
  MAX_ANSWER_WINDOW_MS,
  MAX_SERVICE_TIER_MS,
  MIN_ANSWER_WINDOW_MS,
  MIN_TIER_MS,
  PAIRING_LIMITS,
  type TimeoutTiers,
  tierOrderProblems,
} from '@hitl/protocol';
import { z } from 'zod';
import { defaultMaxConnections } from './http/http-limits.js';
import { type VapidKeys, vapidProblems } from './push/vapid-keys.js';

const TIER_VARS: Record<keyof TimeoutTiers, string> = {
  deviceMs: 'HITL_DEVICE_TIMEOUT_MS',
  serviceMs: 'HITL_SERVICE_TIMEOUT_MS',
  clientMs: 'HITL_CLIENT_TIMEOUT_MS',
};

const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
const MIB = 1024 * 1024;
const list = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );

const EnvSchema = z.object({
  PORT: int(8787, 0, 65535),
  HOST: z.string().min(1).default('127.0.0.1'),
  REDIS_URL: z.string().url().optional(),
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(/^[^,\s:]+:\d+(,[^,\s:]+:\d+)*$/, 'expected host:port,host:port,...')
    .optional(),
  HITL_DEVICE_TIMEOUT_MS: int(30_000, MIN_TIER_MS),
  HITL_SERVICE_TIMEOUT_MS: int(50_000, MIN_TIER_MS, MAX_SERVICE_TIER_MS),
  HITL_CLIENT_TIMEOUT_MS: int(90_000, MIN_TIER_MS),
  HITL_MAX_ANSWER_WINDOW_MS: int(DEFAULT_MAX_ANSWER_WINDOW_MS, MIN_ANSWER_WINDOW_MS, MAX_ANSWER_WINDOW_MS),
  HITL_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  HITL_STATE_DIR: z.string().min(1).default(join(homedir(), '.hitl')),
  HITL_STORE: z.enum(['sqlite', 'memory']).default('sqlite'),
  HITL_DECISION_URL: z.string().url().optional(),
  HITL_ALLOWED_HOSTS: list,
  HITL_ALLOWED_ORIGINS: list,
  HITL_RATE_PER_MIN: int(600),
  HITL_MAX_CONNECTIONS: z.coerce.number().int().min(1).optional(),
  HITL_MAX_PENDING_PER_USER: int(1000),
  HITL_MAX_SOCKETS_PER_TOKEN: int(20, 1),
  HITL_HANDSHAKES_PER_MIN: int(60),
  HITL_PAIRING_TTL_MS: int(PAIRING_LIMITS.maxTtlMs, 1000, PAIRING_LIMITS.maxTtlMs),
  HITL_HEARTBEAT_MS: int(10_000, 100),
  HITL_RETENTION_MS: int(7 * 24 * 3600_000, 1000),
  HITL_SWEEP_MS: int(500, 10),
  HITL_DRAIN_MS: int(10_000, 0),
  HITL_TIMEOUT_TEXT: z.string().min(1).max(2000).default("I'm busy right now; use your own judgement."),
  HITL_REFUSAL_TEXT: z
    .string()
    .min(1)
    .max(2000)
    .default("I'm not sure about the details; decide as you see fit."),
  HITL_NODE_ID: z.string().min(1).max(100).optional(),
  HITL_LLM_URL: z.string().url().optional(),
  HITL_LLM_MODEL: z.string().min(1).max(200).optional(),
  HITL_LLM_API_KEY: z.string().min(1).optional(),
  HITL_POLICY_FILE: z.string().min(1).optional(),
  HITL_FORBID_STRATEGIES: list.pipe(
    z.array(
      FallbackStrategySchema.exclude(['fail_closed'], {
        error: 'expected strategy names other than fail_closed',
      }),
    ),
  ),
  HITL_DECISION_LOG_MAX: int(10_000, 100, 10_000_000),
  HITL_VAPID_PUBLIC_KEY: z.string().min(1).optional(),
  HITL_VAPID_PRIVATE_KEY: z.string().min(1).optional(),
  HITL_VAPID_SUBJECT: z.string().min(1).optional(),
  HITL_PUSH_ALLOW_HTTP_HOSTS: list,
  HITL_DIRECTORY_FILE: z.string().min(1).optional(),
  HITL_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  HITL_SMTP_URL: z
    .url({ protocol: /^smtps?$/, error: 'expected smtp://user:pass@host:port or smtps://...' })
    .optional(),
  HITL_EMAIL_FROM: z.string().min(3).max(320).optional(),
  HITL_WEBHOOK_ALLOW_HOSTS: list,
  HITL_WEBHOOK_BACKOFF_MS: int(5000, 10, 3_600_000),
  HITL_WEBHOOK_RETRY_BYTES: int(16 * MIB, 64 * 1024, 1024 * MIB),
  HITL_WEBHOOK_RETRY_BYTES_PER_USER: int(4 * MIB, 64 * 1024, 1024 * MIB),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  redisUrl?: string;
  redisClusterNodes?: { host: string; port: number }[];
  tiers: TimeoutTiers;
  /** The longest answer window (`answerWithinMs`, a task's ttl) an inquiry may have, in ms. */
  maxAnswerWindowMs: number;
  secret?: string;
  stateDir: string;
  /**
   * The store without Redis: `sqlite` (durable, `<stateDir>/hitl.db`) or `memory` (gone on restart).
   * Ignored when `REDIS_URL` or `REDIS_CLUSTER_NODES` is set.
   */
  embeddedStore: 'sqlite' | 'memory';
  decisionUrl?: string;
  allowedHosts: string[];
  allowedOrigins: string[];
  ratePerMin: number;
  /** Open connections per process (`HITL_MAX_CONNECTIONS`; default: the open-file limit less a margin). */
  maxConnections: number;
  maxPendingPerUser: number;
  /** Live device sockets one token may hold; the oldest beyond it are dropped. */
  maxSocketsPerToken: number;
  /** Socket.IO handshakes per minute per token (an address gets five times it); 0: no limit. */
  handshakesPerMin: number;
  /** How long a pairing code lives (`HITL_PAIRING_TTL_MS`, 1 s .. 10 min; DESIGN §6.7). */
  pairingTtlMs: number;
  heartbeatMs: number;
  retentionMs: number;
  sweepMs: number;
  drainMs: number;
  texts: { timeout: string; refusal: string };
  nodeId?: string;
  /** The model behind the `agent` strategy (OpenAI-compatible); rule-based when unset. */
  llm?: { url: string; model: string; apiKey?: string };
  /** Fallback policy: `HITL_POLICY_FILE` plus `HITL_FORBID_STRATEGIES`. */
  policy: PolicyConfig;
  /** About how many records the decision audit log keeps. */
  decisionLogMax: number;
  /** Web Push: the configured VAPID keys (else generated, see push/load-vapid.ts) and the http: hosts allowed. */
  push: { vapid?: VapidKeys; allowHttpHosts: string[] };
  /** The directory of people, teams and webhooks (`HITL_DIRECTORY_FILE`, YAML or JSON). */
  directoryFile?: string;
  /** The address people reach this service at (answer links); default: the node's own URL. */
  publicUrl?: string;
  /** Mail for people whose directory entry asks for it: `HITL_SMTP_URL` and `HITL_EMAIL_FROM`. */
  email?: { smtpUrl: string; from: string };
  /** Webhooks: hosts they may reach although loopback or private, and the first retry's delay. */
  /**
   * Webhook targets allowed although private, the first retry's delay, and the memory bound of waiting
   * retries (their bodies, per webhook URL and per user; `HITL_WEBHOOK_RETRY_BYTES*`).
   */
  webhooks: {
    allowHosts: string[];
    backoffMs: number;
    retryCaps: { perWebhookBytes: number; perUserBytes: number };
  };
  logLevel: z.infer<typeof EnvSchema>['LOG_LEVEL'];
}

/** Start-up refuses a bad environment with this; its message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Reads and checks the whole configuration from the environment (DESIGN §3.1).
 * @throws ConfigError naming each bad variable and its value.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const defined = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(defined);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      return `${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const tiers: TimeoutTiers = {
    deviceMs: e.HITL_DEVICE_TIMEOUT_MS,
    serviceMs: e.HITL_SERVICE_TIMEOUT_MS,
    clientMs: e.HITL_CLIENT_TIMEOUT_MS,
  };
  const problems = tierOrderProblems(tiers);
  if (problems.length > 0) {
    const lines = problems.map(
      ({ lower, upper }) =>
        `${TIER_VARS[lower]}=${tiers[lower]} must be less than ${TIER_VARS[upper]}=${tiers[upper]}`,
    );
    throw new ConfigError(`invalid timeout tiers:\n  ${lines.join('\n  ')}`);
  }
  if (e.HITL_SMTP_URL && !e.HITL_EMAIL_FROM) {
    throw new ConfigError(`invalid configuration:\n  HITL_EMAIL_FROM="": required when HITL_SMTP_URL is set`);
  }
  if (e.HITL_LLM_URL && !e.HITL_LLM_MODEL) {
    throw new ConfigError(`invalid configuration:\n  HITL_LLM_MODEL="": required when HITL_LLM_URL is set`);
  }
  let policy: PolicyConfig = {};
  if (e.HITL_POLICY_FILE) {
    try {
      policy = loadPolicyFile(e.HITL_POLICY_FILE);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ConfigError(
        `invalid configuration:\n  HITL_POLICY_FILE=${JSON.stringify(e.HITL_POLICY_FILE)}: ${message}`,
      );
    }
  }
  const vapid = vapidFromEnv(e);
  return {
    port: e.PORT,
    host: e.HOST,
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES?.split(',').map((seed) => {
      const [host = '', port = ''] = seed.split(':');
      return { host, port: Number(port) };
    }),
    tiers,
    maxAnswerWindowMs: e.HITL_MAX_ANSWER_WINDOW_MS,
    secret: e.HITL_SECRET,
    stateDir: e.HITL_STATE_DIR,
    embeddedStore: e.HITL_STORE,
    decisionUrl: e.HITL_DECISION_URL,
    allowedHosts: e.HITL_ALLOWED_HOSTS,
    allowedOrigins: e.HITL_ALLOWED_ORIGINS,
    ratePerMin: e.HITL_RATE_PER_MIN,
    maxConnections: e.HITL_MAX_CONNECTIONS ?? defaultMaxConnections(),
    maxPendingPerUser: e.HITL_MAX_PENDING_PER_USER,
    maxSocketsPerToken: e.HITL_MAX_SOCKETS_PER_TOKEN,
    handshakesPerMin: e.HITL_HANDSHAKES_PER_MIN,
    pairingTtlMs: e.HITL_PAIRING_TTL_MS,
    heartbeatMs: e.HITL_HEARTBEAT_MS,
    retentionMs: e.HITL_RETENTION_MS,
    sweepMs: e.HITL_SWEEP_MS,
    drainMs: e.HITL_DRAIN_MS,
    texts: { timeout: e.HITL_TIMEOUT_TEXT, refusal: e.HITL_REFUSAL_TEXT },
    nodeId: e.HITL_NODE_ID,
    llm:
      e.HITL_LLM_URL && e.HITL_LLM_MODEL
        ? {
            url: e.HITL_LLM_URL,
            model: e.HITL_LLM_MODEL,
            ...(e.HITL_LLM_API_KEY ? { apiKey: e.HITL_LLM_API_KEY } : {}),
          }
        : undefined,
    policy: withForbidden(policy, e.HITL_FORBID_STRATEGIES),
    decisionLogMax: e.HITL_DECISION_LOG_MAX,
    push: { ...(vapid ? { vapid } : {}), allowHttpHosts: e.HITL_PUSH_ALLOW_HTTP_HOSTS },
    directoryFile: e.HITL_DIRECTORY_FILE,
    publicUrl: e.HITL_PUBLIC_URL,
    email:
      e.HITL_SMTP_URL && e.HITL_EMAIL_FROM
        ? { smtpUrl: e.HITL_SMTP_URL, from: e.HITL_EMAIL_FROM }
        : undefined,
    webhooks: {
      allowHosts: e.HITL_WEBHOOK_ALLOW_HOSTS,
      backoffMs: e.HITL_WEBHOOK_BACKOFF_MS,
      retryCaps: {
        perWebhookBytes: e.HITL_WEBHOOK_RETRY_BYTES,
        perUserBytes: e.HITL_WEBHOOK_RETRY_BYTES_PER_USER,
      },
    },
    logLevel: e.LOG_LEVEL,
  };
}

const VAPID_VARS = {
  publicKey: 'HITL_VAPID_PUBLIC_KEY',
  privateKey: 'HITL_VAPID_PRIVATE_KEY',
  subject: 'HITL_VAPID_SUBJECT',
} as const;

/**
 * The VAPID keys from the environment: all three variables or none (then the node makes its own).
 * @throws ConfigError naming the missing variables, or each bad one
 */
function vapidFromEnv(e: z.infer<typeof EnvSchema>): VapidKeys | undefined {
  const given = {
    publicKey: e.HITL_VAPID_PUBLIC_KEY,
    privateKey: e.HITL_VAPID_PRIVATE_KEY,
    subject: e.HITL_VAPID_SUBJECT,
  };
  const missing = (Object.keys(VAPID_VARS) as (keyof typeof VAPID_VARS)[]).filter((k) => !given[k]);
  if (missing.length === 3) return undefined;
  if (missing.length > 0) {
    const lines = missing.map(
      (k) => `${VAPID_VARS[k]}="": required when any HITL_VAPID_* variable is set (all three or none)`,
    );
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const keys = given as VapidKeys;
  const problems = vapidProblems(keys);
  if (problems.length > 0) {
    // The private key is a secret: never echoed back.
    const lines = problems.map(({ field, message }) =>
      field === 'privateKey'
        ? `${VAPID_VARS[field]}: ${message}`
        : `${VAPID_VARS[field]}=${JSON.stringify(keys[field])}: ${message}`,
    );
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return keys;
}
