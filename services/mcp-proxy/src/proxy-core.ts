import { ChatTokens, TokenService } from '@hitl/auth';
import { type Config, loadOrCreateSecret, openBackend } from '@hitl/runtime';
import {
  type McpSessionStore,
  MemorySessionStore,
  type ProxyStore,
  RedisSessionStore,
  SqliteProxyStore,
} from '@hitl/store';
import { InquiryAsker } from './approval/inquiry-asker.js';
import { inquiryTokens } from './approval/inquiry-tokens.js';
import { nodeStandingCheck } from './approval/standing-check.js';
import type { AuditSink } from './audit/audit-sink.js';
import { pinoAuditSink } from './audit/audit-sink.js';
import { allSinks, chainAuditSink, nodeChainAppender } from './audit/chain-sink.js';
import { decisionLogSink } from './audit/decision-record.js';
import { type Backend, connectBackend } from './backend/backend.js';
import type { BackendSpec } from './backend/backend-spec.js';
import { ProxyChatDoor } from './chat/chat-door.js';
import { NodeRest } from './chat/node-rest.js';
import type { Logger } from './logger.js';
import type { CallDeps, CallTimings, Clock } from './mcp/call-deps.js';
import { interruptedOutcome } from './mcp/owned-run.js';
import type { Policy } from './policy/policy-schema.js';
import { VERSION } from './version.js';

/** Everything `hitl proxy` is told: the backend, the policy, the inquiry node, and the environment. */
export interface ProxyOptions {
  backend: BackendSpec;
  policy: Policy;
  /** An inquiry node (base URL or its `/mcp`). */
  inquiryUrl: string;
  /** The environment, read by `@hitl/runtime`'s loader (PORT, HOST, REDIS_URL, tiers, secret...). */
  config: Config;
  /** A bearer agent token for the inquiry node, used instead of minting one (single user only). */
  inquiryToken?: string;
  logger: Logger;
  /**
   * Where decisions go. Default: with REDIS_URL or REDIS_CLUSTER_NODES, the shared decision audit log (the Redis stream
   * the inquiry node's `/api/decisions` reads) and the shared audit chain; without, a pino line each and
   * the node's audit chain (`POST /api/audit/records`).
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
  /**
   * The agent's chat (sessions, elicitation, answers through the node's REST): only when some tool's
   * policy says `approveInChat: true` and the proxy holds the shared secret; else `/mcp` stays stateless.
   */
  chat?: ProxyChatDoor;
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
  const timings = { ...DEFAULT_TIMINGS, holdMs: config.tiers.serviceMs, ...options.timings };
  // The backend chosen as every process chooses it (REDIS_URL or REDIS_CLUSTER_NODES: grants,
  // operations and the shared decision log on one connection; else the proxy's own SQLite file, one
  // proxy process per state dir; or memory); its shutdown list closes what was opened.
  const stores = openBackend(config, { logger, clock });
  const shutdown = stores.shutdown;
  let store: ProxyStore;
  let backend: Backend;
  try {
    store = await settledStore(stores.proxy, timings.resultRetentionMs, logger);
    backend = await connectBackend(options.backend, { logger, version: VERSION });
  } catch (error) {
    await shutdown.closeAll();
    throw error;
  }
  shutdown.add('backend', () => backend.close().catch(() => undefined));
  const tokenFor = inquiryTokens({ tokens, configured: options.inquiryToken });
  const asker = new InquiryAsker({
    inquiryUrl: options.inquiryUrl,
    tokenFor,
    clientTimeoutMs: config.tiers.clientMs,
    logger,
    version: VERSION,
  });
  shutdown.add('inquiry clients', () => asker.close());
  // Every decision in the audit chain: the shared one (Redis), or the node's (an embedded proxy posts
  // its records with an ops token from the shared secret; with only a configured agent token it cannot).
  const defaultSink = (): AuditSink => {
    if (stores.kind === 'redis') {
      return allSinks(decisionLogSink(stores.decisions, logger), chainAuditSink(stores.audit, logger));
    }
    if (!tokens) {
      logger.warn('no HITL_SECRET: proxy decisions are logged but not sent to the audit chain');
      return pinoAuditSink(logger);
    }
    const opsToken = () =>
      tokens.sign({ sub: 'hitl-proxy', role: 'ops', name: 'approval proxy' }, { expiresIn: '5m' });
    return allSinks(
      pinoAuditSink(logger),
      chainAuditSink(nodeChainAppender(options.inquiryUrl, opsToken), logger),
    );
  };
  const calls: CallDeps = {
    backend,
    store,
    policy: options.policy,
    asker,
    standing: nodeStandingCheck({ inquiryUrl: options.inquiryUrl, tokenFor, logger }),
    audit: options.audit ?? defaultSink(),
    clock,
    logger,
    timings,
  };
  const chat = chatDoor(options, stores, tokens, secret);
  return {
    calls,
    tokens,
    backend,
    store,
    ...(chat ? { chat } : {}),
    close: () => shutdown.closeAll(),
  };
}

/** The chat door, when the policy puts some approval in the agent's chat (and the proxy can answer as its person). */
function chatDoor(
  options: ProxyOptions,
  stores: ReturnType<typeof openBackend>,
  tokens: TokenService | undefined,
  secret: string | undefined,
): ProxyChatDoor | undefined {
  const { policy, config, logger } = options;
  if (!Object.values(policy.tools).some((tool) => tool.approveInChat)) return undefined;
  if (!tokens || !secret) {
    logger.warn('approveInChat needs HITL_SECRET (to answer as the person): no approval is put in the chat');
    return undefined;
  }
  const clock = options.clock ?? Date;
  // Redis: every proxy node serves a session, under the proxy's own prefix (a node's session id
  // names nothing here, nor the reverse). Else one proxy process: its memory (a restart ends the
  // sessions; the client initializes again). Never the node's state file, which the node holds.
  const sessions: McpSessionStore = stores.redis
    ? new RedisSessionStore({ redis: stores.redis, prefix: 'hitl:proxy:' })
    : new MemorySessionStore(() => clock.now());
  stores.shutdown.add('chat sessions', () => sessions.close());
  return new ProxyChatDoor({
    sessions,
    // Keyed apart from the node's: an id the proxy writes never verifies at the node, nor the reverse.
    tokens: new ChatTokens(`hitl approval proxy chat\u0000${secret}`),
    rest: new NodeRest(options.inquiryUrl, tokens),
    logger,
    clock,
    sessionTtlMs: config.mcpSessionTtlMs,
  });
}

/** The proxy's store; its state file with what a previous process left unfinished settled before serving. */
async function settledStore(
  store: ProxyStore,
  resultRetentionMs: number,
  logger: Logger,
): Promise<ProxyStore> {
  if (!(store instanceof SqliteProxyStore)) return store;
  const settled = await store.settleInterrupted(interruptedOutcome, resultRetentionMs);
  if (settled.unknownOutcome + settled.parked > 0) {
    logger.warn(settled, 'settled the calls a previous proxy process left unfinished');
  }
  return store;
}
