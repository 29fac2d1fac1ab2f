import { homedir } from 'node:os';
import { join } from 'node:path';
import { loadPolicyFile } from '@hitl/decisions';
import {
  DEFAULT_MAX_ANSWER_WINDOW_MS,
  FallbackStrategySchema,
  LIMITS,
  MAX_ANSWER_WINDOW_MS,
  MAX_SERVICE_TIER_MS,
  MIN_ANSWER_WINDOW_MS,
  MIN_TIER_MS,
  PAIRING_LIMITS,
} from '@hitl/protocol';
import { z } from 'zod';
import { defaultMaxConnections } from '../http-limits.js';

/*
 * Every environment variable the node reads, each declared once: its name, default, parse and, where
 * the name does not say it, what it is for. `config.ts` turns the parsed variables into the `Config`.
 */

const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

const MIB = 1024 * 1024;

/** A comma-separated list, trimmed and lower-cased; empty entries dropped. */
const list = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );

const text = (fallback: string) => z.string().min(1).max(2000).default(fallback);

/** A variable whose value is never printed, not even when it is wrong (a key, the signing secret). */
const secret = <T extends z.ZodType>(schema: T, description: string) =>
  schema.meta({ description, secret: true });

/** Whether a variable of {@link EnvVars} is a secret: a message names it but never shows its value. */
export function isSecretVar(name: string): boolean {
  const schema = (EnvVars.shape as Record<string, z.ZodType | undefined>)[name];
  return schema?.meta()?.secret === true;
}

const clusterSeeds = z
  .string()
  .regex(/^[^,\s:]+:\d+(,[^,\s:]+:\d+)*$/, 'expected host:port,host:port,...')
  .transform((v) =>
    v.split(',').map((seed) => {
      const [host = '', port = ''] = seed.split(':');
      return { host, port: Number(port) };
    }),
  );

/** The policy file read at start-up; a file that cannot be read or parsed is this variable's problem. */
const policyFile = z
  .string()
  .min(1)
  .transform((path, ctx) => {
    try {
      return loadPolicyFile(path);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      return z.NEVER;
    }
  });

export const EnvVars = z.object({
  PORT: int(8787, 0, 65535).meta({ description: 'HTTP + MCP + Socket.IO on one port' }),
  HOST: z.string().min(1).default('127.0.0.1'),
  REDIS_URL: z
    .string()
    .url()
    .optional()
    .meta({ description: 'unset: embedded store; set: distributed mode' }),
  REDIS_CLUSTER_NODES: clusterSeeds
    .optional()
    .meta({ description: 'Redis Cluster seeds, instead of REDIS_URL' }),
  HITL_DEVICE_TIMEOUT_MS: int(30_000, MIN_TIER_MS).meta({ description: 'tier 1: the device countdown' }),
  HITL_SERVICE_TIMEOUT_MS: int(50_000, MIN_TIER_MS, MAX_SERVICE_TIER_MS).meta({
    description: 'tier 2: the service resolves the inquiry itself',
  }),
  HITL_CLIENT_TIMEOUT_MS: int(90_000, MIN_TIER_MS).meta({
    description: 'tier 3: what MCP clients must allow',
  }),
  HITL_MAX_ANSWER_WINDOW_MS: int(DEFAULT_MAX_ANSWER_WINDOW_MS, MIN_ANSWER_WINDOW_MS, MAX_ANSWER_WINDOW_MS),
  HITL_SECRET: secret(
    z.string().min(32, 'must be at least 32 characters').optional(),
    'signs device, agent and ops tokens; unset: kept in the state folder',
  ),
  HITL_STATE_DIR: z.string().min(1).default(join(homedir(), '.hitl')),
  HITL_AUDIT_KEY: secret(
    z
      .string()
      .trim()
      .refine(
        (v) => /^[A-Za-z0-9_-]{43}=?$/.test(v),
        'must be 32 bytes, base64url (make one: hitl audit keygen)',
      )
      .optional(),
    'the Ed25519 key that signs audit checkpoints; required with Redis; unset: kept in the state folder',
  ),
  HITL_STORE: z.enum(['sqlite', 'memory']).default('sqlite'),
  HITL_DECISION_URL: z.string().url().optional().meta({ description: 'the decision agent (`hitl decide`)' }),
  HITL_ALLOWED_HOSTS: list,
  HITL_ALLOWED_ORIGINS: list,
  HITL_RATE_PER_MIN: int(600),
  HITL_MAX_CONNECTIONS: z.coerce
    .number()
    .int()
    .min(1)
    .default(() => defaultMaxConnections())
    .meta({ description: 'open connections per process; default: the open-file limit less a margin' }),
  HITL_MAX_PENDING_PER_USER: int(1000),
  HITL_MAX_STANDING_MS: int(24 * 3600_000, 60_000, LIMITS.standingMinutesMax * 60_000).meta({
    description: 'the longest standing approval ("approve and allow for N minutes")',
  }),
  HITL_MAX_SOCKETS_PER_TOKEN: int(20, 1),
  HITL_HANDSHAKES_PER_MIN: int(60),
  HITL_PAIRING_TTL_MS: int(PAIRING_LIMITS.maxTtlMs, 1000, PAIRING_LIMITS.maxTtlMs),
  HITL_HEARTBEAT_MS: int(10_000, 100),
  HITL_RETENTION_MS: int(7 * 24 * 3600_000, 1000),
  HITL_SWEEP_MS: int(500, 10),
  HITL_REVOCATION_POLL_MS: int(5000, 100, 86_400_000).meta({
    description: 'how often each node re-reads revocations besides the change feed (a safety net)',
  }),
  HITL_DRAIN_MS: int(10_000, 0),
  HITL_TIMEOUT_TEXT: text("I'm busy right now; use your own judgement."),
  HITL_REFUSAL_TEXT: text("I'm not sure about the details; decide as you see fit."),
  HITL_NODE_ID: z.string().min(1).max(100).optional(),
  HITL_LLM_URL: z.string().url().optional().meta({ description: 'OpenAI-compatible model for `agent`' }),
  HITL_LLM_MODEL: z.string().min(1).max(200).optional(),
  HITL_LLM_API_KEY: secret(z.string().min(1).optional(), 'the model API key'),
  HITL_POLICY_FILE: policyFile.optional(),
  HITL_FORBID_STRATEGIES: list.pipe(
    z.array(
      FallbackStrategySchema.exclude(['fail_closed'], {
        error: 'expected strategy names other than fail_closed',
      }),
    ),
  ),
  HITL_DECISION_LOG_MAX: int(10_000, 100, 10_000_000),
  HITL_VAPID_PUBLIC_KEY: z.string().min(1).optional(),
  HITL_VAPID_PRIVATE_KEY: secret(z.string().min(1).optional(), 'the Web Push signing key'),
  HITL_VAPID_SUBJECT: z.string().min(1).optional(),
  HITL_PUSH_ALLOW_HTTP_HOSTS: list,
  HITL_DIRECTORY_FILE: z.string().min(1).optional(),
  HITL_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  HITL_ELICITATION: z.enum(['on', 'off']).default('on').meta({
    description: "off: this node never asks in the agent's chat (MCP elicitation)",
  }),
  HITL_MCP_SESSION_TTL_MS: int(86_400_000, 1000, 30 * 86_400_000).meta({
    description: 'how long an unused MCP session (a client that takes elicitation) lives',
  }),
  HITL_SMTP_URL: z
    .url({ protocol: /^smtps?$/, error: 'expected smtp://user:pass@host:port or smtps://...' })
    .optional(),
  HITL_EMAIL_FROM: z.string().min(3).max(320).optional(),
  HITL_WEBHOOK_ALLOW_HOSTS: list,
  HITL_WEBHOOK_BACKOFF_MS: int(5000, 10, 3_600_000),
  /** Bytes of waiting webhook retry bodies kept per webhook URL; past it the oldest are dropped (failed). */
  HITL_WEBHOOK_RETRY_BYTES: int(16 * MIB, 64 * 1024, 1024 * MIB),
  /** The same bound per user whose inquiries the bodies carry. */
  HITL_WEBHOOK_RETRY_BYTES_PER_USER: int(4 * MIB, 64 * 1024, 1024 * MIB),
  HITL_SLACK_BOT_TOKEN: secret(
    z
      .string()
      .regex(/^xox[a-z]-[A-Za-z0-9-]+$/, 'expected a Slack bot token (xoxb-...)')
      .optional(),
    "the Slack app's bot token: questions are posted to Slack with it",
  ),
  HITL_SLACK_SIGNING_SECRET: secret(
    z.string().min(8).max(200).optional(),
    "the Slack app's signing secret: checks that a request came from Slack",
  ),
  HITL_SLACK_API_URL: z
    .url({ protocol: /^https?$/ })
    .default('https://slack.com/api/')
    .meta({
      description: "Slack's Web API (operator configuration: not held to the outbound address guard)",
    }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Env = z.output<typeof EnvVars>;
