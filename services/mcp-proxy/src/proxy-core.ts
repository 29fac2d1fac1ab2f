import { join } from 'node:path';
import { TokenService } from '@hitl/auth';
import { RedisDecisionLog } from '@hitl/decision-agent';
import { type Config, loadOrCreateSecret } from '@hitl/inquiry';
import { connectSharedRedis } from '@hitl/store';
import { InquiryAsker } from './approval/inquiry-asker.js';
import { inquiryTokens } from './approval/inquiry-tokens.js';
import type { AuditSink } from './audit/audit-sink.js';
import { pinoAuditSink } from './audit/audit-sink.js';
import { decisionLogSink } from './audit/decision-record.js';
import { type Backend, connectBackend } from './backend/backend.js';
import type { BackendSpec } from './backend/backend-spec.js';
import type { Logger } from './logger.js';
import type { CallDeps, CallTimings, Clock } from './mcp/call-deps.js';
import { interruptedOutcome } from './mcp/owned-run.js';
import type { Policy } from './policy/policy-schema.js';
import { MemoryProxyStore } from './store/memory-proxy-store.js';
import type { ProxyStore } from './store/proxy-store.js';
import { RedisProxyStore } from './store/redis-proxy-store.js';
import { SqliteProxyStore } from './store/sqlite-proxy-store.js';
import { VERSION } from './version.js';

/** Everything `hitl proxy` is told: the backend, the policy, the inquiry node, and the environment. */
export interface ProxyOptions {
  backend: BackendSpec;
  policy: Policy;
  /** An inquiry node (base URL or its `/mcp`). */
  inquiryUrl: string;
  /** The environment, read by `@hitl/inquiry`'s loader (PORT, HOST, REDIS_URL, tiers, secret...). */
  config: Config;
  /** A bearer agent token for the inquiry node, used instead of minting one (single user only). */
  inquiryToken?: string;
  logger: Logger;
  /**
   * Where decisions go. Default: with REDIS_URL or REDIS_CLUSTER_NODES, the shared decision audit log (the Redis stream
   * the inquiry node's `/api/decisions` reads) plus a pino line; without, a pino line each.
   */
  audit?: AuditSink;
  clock?: Clock;
  timings?: Partial<CallTimings>;
}

export const DEFAULT_TIMINGS = {
  backendTimeoutMs: 15 * 60_000,
  grantGraceMs: 2000,
  resultRetentionMs: 24 * 60 * 60_000,
} as const;

/** The shared parts of both doors (HTTP and stdio): secret, store, backend and the call deps. */
export interface ProxyCore {
  calls: CallDeps;
  /** Verifies agent tokens (absent when there is no secret and a configured inquiry token is used). */
  tokens?: TokenService;
  backend: Backend;
  store: ProxyStore;
  close(): Promise<void>;
}

export async function buildProxyCore(options: ProxyOptions): Promise<ProxyCore> {
  const { config, logger } = options;
  const clock = options.clock ?? Date;
  const secret =
    options.inquiryToken && !config.secret
      ? undefined
      : (await loadOrCreateSecret(config.secret, config.stateDir)).secret;
  const tokens = secret ? new TokenService(secret) : undefined;
  // Distributed mode: one connection for the grants, the operations and the shared decision log.
  // REDIS_URL or REDIS_CLUSTER_NODES, chosen as the inquiry node chooses (the one factory).
  const redis = connectSharedRedis(config, (error) =>
    logger.warn({ err: error.message }, 'redis connection error'),
  );
  // Without Redis: a SQLite file of the proxy's own (one proxy process per state dir), or memory.
  const timings = { ...DEFAULT_TIMINGS, holdMs: config.tiers.serviceMs, ...options.timings };
  const store: ProxyStore = redis
    ? new RedisProxyStore({ redis })
    : config.embeddedStore === 'sqlite'
      ? await openSqliteStore(join(config.stateDir, 'proxy.db'), clock, timings.resultRetentionMs, logger)
      : new MemoryProxyStore(clock);
  const closeStore = async () => {
    await store.close();
    await redis?.quit().catch(() => redis.disconnect());
  };
  const backend = await connectBackend(options.backend, { logger, version: VERSION }).catch(async (error) => {
    await closeStore();
    throw error;
  });
  const asker = new InquiryAsker({
    inquiryUrl: options.inquiryUrl,
    tokenFor: inquiryTokens({ tokens, configured: options.inquiryToken }),
    clientTimeoutMs: config.tiers.clientMs,
    logger,
    version: VERSION,
  });
  const calls: CallDeps = {
    backend,
    store,
    policy: options.policy,
    asker,
    audit:
      options.audit ??
      (redis
        ? decisionLogSink(new RedisDecisionLog({ redis, max: config.decisionLogMax }), logger)
        : pinoAuditSink(logger)),
    clock,
    logger,
    timings,
  };
  return {
    calls,
    tokens,
    backend,
    store,
    close: async () => {
      await backend.close().catch(() => undefined);
      await closeStore();
    },
  };
}

/** The proxy's state file, with what a previous process left unfinished settled before serving. */
async function openSqliteStore(
  path: string,
  clock: Clock,
  resultRetentionMs: number,
  logger: Logger,
): Promise<SqliteProxyStore> {
  const store = new SqliteProxyStore({ path }, clock);
  try {
    const settled = await store.settleInterrupted(interruptedOutcome, resultRetentionMs);
    if (settled.unknownOutcome + settled.parked > 0) {
      logger.warn(settled, 'settled the calls a previous proxy process left unfinished');
    }
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
