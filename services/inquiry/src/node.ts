import { randomBytes } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ChatTokens, LinkTokens, TokenService } from '@hitl/auth';
import { type Abortable, HeldCalls } from '@hitl/mcp-http';
import { type Inquiry, listenOn, PAIRING_LIMITS } from '@hitl/protocol';
import {
  applyHttpLimits,
  type Config,
  createLogger,
  HTTP_SERVER_OPTIONS,
  type Logger,
  loadOrCreateSecret,
  openBackend,
  ShutdownList,
} from '@hitl/runtime';
import type { DeviceStore } from '@hitl/store';
import { createAdaptorServer } from '@hono/node-server';
import { loadAuditKey } from './audit/audit-key.js';
import { Auditor } from './audit/auditor.js';
import { RevocationCache } from './auth/revocation-cache.js';
import { ChatDoor } from './chat/chat-door.js';
import { InquiryCards } from './chat/inquiry-card.js';
import { DeadlineSweeper } from './core/deadline-sweeper.js';
import { createDecisionParts } from './core/decision-setup.js';
import { InquiryService } from './core/inquiry-service.js';
import { type Clock, type InquiryEvents, systemClock, within } from './core/ports.js';
import { createRateLimiter } from './core/rate-limit.js';
import { EscalationTimers, ServiceTimers } from './core/service-timers.js';
import { StandingGrants } from './core/standing-grants.js';
import { DeviceSightings } from './devices/device-sightings.js';
import type { DirectoryHolder } from './directory/directory.js';
import { openDirectory } from './directory/open-directory.js';
import { createApp } from './http/app.js';
import { NodeMetrics } from './metrics.js';
import { startNotifiers } from './notify/notifiers.js';
import { relyingPartyOf } from './passkeys/approval-challenge.js';
import { PasskeyService } from './passkeys/passkey-service.js';
import { createPushParts } from './push/push-setup.js';
import { DeviceDeliveryRecorder } from './socket/delivery-recorder.js';
import { createDeviceGateway } from './socket/gateway.js';
import { socketAdapter } from './socket/socket-adapter.js';
import { VERSION } from './version.js';

export interface NodeOptions {
  clock?: Clock;
  logger?: Logger;
  /** Where the built web app lives (index.html + assets). */
  webRoot?: string;
}

export interface RunningNode {
  url: string;
  port: number;
  nodeId: string;
  tokens: TokenService;
  /** Signs and checks answer links (`/a/<token>`). */
  links: LinkTokens;
  /** True when this start created the secret (first embedded start). */
  secretCreated: boolean;
  logger: Logger;
  /** The directory in force (reloaded on `SIGHUP`, or by calling `reload()`). */
  directory: DirectoryHolder;
  /** Pairings and device records. */
  devices: DeviceStore;
  /** The audit chain: `appendAudit` for decisions made outside an inquiry's store step. */
  auditor: Auditor;
  /** Stops taking new calls, lets held calls finish up to the drain timeout, then closes everything. */
  close(): Promise<void>;
}

/**
 * Starts one service node: HTTP + MCP + Socket.IO on one port, with its store and timers. When the
 * start fails half-way (the port is taken, Redis refuses a script), everything it had opened is closed
 * before the error is thrown: the same shutdown list a normal stop runs.
 */
export async function startNode(config: Config, options: NodeOptions = {}): Promise<RunningNode> {
  const nodeId = config.nodeId ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const logger = options.logger ?? createLogger(config.logLevel, nodeId);
  const shutdown = new ShutdownList(logger);
  try {
    return await openNode(config, options, { nodeId, logger, shutdown });
  } catch (error) {
    await shutdown.closeAll();
    throw error;
  }
}

/** Opens the node's parts, each registering its close on `shutdown` as it is opened. */
async function openNode(
  config: Config,
  options: NodeOptions,
  { nodeId, logger, shutdown }: { nodeId: string; logger: Logger; shutdown: ShutdownList },
): Promise<RunningNode> {
  const clock = options.clock ?? systemClock;
  const { secret, created: secretCreated } = await loadOrCreateSecret(config.secret, config.stateDir);
  const tokens = new TokenService(secret);
  const links = new LinkTokens(secret);
  const distributed = config.redisUrl !== undefined || config.redisClusterNodes !== undefined;
  const auditKey = await loadAuditKey(config.auditKey, config.stateDir, distributed);
  const directory = await openDirectory(config.directoryFile, logger);
  // Every store on the one backend (Redis, the durable SQLite file that refuses a second process on
  // the same state dir, or memory), each registering its close on `shutdown` as it is opened.
  const backend = openBackend(config, { logger, clock, shutdown });
  const redis = backend.redis;
  const store = backend.inquiries;
  const adapter = redis ? socketAdapter(redis, shutdown) : undefined;
  const limiter = createRateLimiter(config.ratePerMin, redis, 'hitl:rate', { clock });
  const wrongCodes = createRateLimiter(PAIRING_LIMITS.wrongCodesPerMin, redis, 'hitl:pairing:wrong', {
    clock,
  });
  // The limiters' last pending points go out before the client closes.
  shutdown.add('rate limiters', () => Promise.all([limiter.close(), wrongCodes.close()]));
  const revocationStore = backend.revocations;
  const tasks = backend.tasks;
  const devices = backend.devices;
  const standing = backend.standing;
  const sightings = new DeviceSightings({ devices, clock, logger });
  // Passkeys and their challenges beside the inquiries: any node verifies an approval.
  let listeningPort = 0;
  const passkeys = new PasskeyService({
    store: backend.passkeys,
    clock,
    logger,
    // HITL_PUBLIC_URL, else http://localhost:<port> (browsers refuse WebAuthn on a bare IP).
    relyingParty: () => relyingPartyOf(config.publicUrl ?? `http://localhost:${listeningPort}`),
  });
  const revocations = new RevocationCache(revocationStore, logger, config.revocationPollMs);
  shutdown.add('revocation feed', () => revocations.stop());
  await revocations.start();
  tokens.checkRevocations((claims) => revocations.isRevoked(claims));
  // A direct call holds its own `CallAbort`; a call through the SDK, an `AbortController`.
  const heldCalls = new HeldCalls<Abortable>();
  let draining = false;

  const listeners: InquiryEvents[] = [];
  const events: InquiryEvents = {
    created: (inquiry: Inquiry) => {
      for (const listener of listeners) listener.created(inquiry);
    },
    resolved: (inquiry: Inquiry) => {
      for (const listener of listeners) listener.resolved(inquiry);
    },
    updated: (inquiry: Inquiry) => {
      for (const listener of listeners) listener.updated?.(inquiry);
    },
    escalated: (inquiry: Inquiry) => {
      for (const listener of listeners) listener.escalated?.(inquiry);
    },
  };
  let deviceCount = () => 0;
  let webhookRetryBytes = () => 0;
  const metrics = new NodeMetrics({
    heldCalls: () => heldCalls.size,
    pending: () => store.countAllPending(),
    devices: () => deviceCount(),
    webhookRetryBytes: () => webhookRetryBytes(),
  });
  // The audit chain beside the store; its outbox is drained first (what a previous process left).
  const auditor = new Auditor({
    chain: backend.audit,
    key: auditKey,
    clock,
    logger,
  });
  await auditor.start();
  shutdown.add('audit outbox drain', () => auditor.stop());
  const decisions = await createDecisionParts(config, {
    log: backend.decisions,
    claims: backend.decisionClaims,
    tokens,
    clock,
    logger,
  });
  const service = new InquiryService({
    store,
    clock,
    logger,
    events,
    metrics,
    config: {
      tiers: config.tiers,
      maxAnswerWindowMs: config.maxAnswerWindowMs,
      maxPendingPerUser: config.maxPendingPerUser,
      texts: config.texts,
      maxStandingMs: config.maxStandingMs,
    },
    decisions,
    directory,
    audit: auditor,
    passkeys,
    standing: new StandingGrants({ store: standing, clock, logger }),
  });
  const timers = new ServiceTimers({ service, store, clock, logger, sweepMs: config.sweepMs });
  const escalations = new EscalationTimers({ service, store, clock, logger, sweepMs: config.sweepMs });
  listeners.push({
    created: (inquiry) => {
      timers.schedule(inquiry);
      escalations.schedule(inquiry);
    },
    resolved: () => undefined,
  });
  let nodeUrl = '';
  const deliveries = backend.deliveries;
  const deviceDeliveries = backend.deviceDeliveries;
  const deviceRecorder = new DeviceDeliveryRecorder(deviceDeliveries, logger);
  shutdown.add('device delivery recorder', () => deviceRecorder.close());
  const notifiers = startNotifiers({
    config,
    directory,
    links,
    service,
    deliveries,
    clock,
    logger,
    nodeUrl: () => nodeUrl,
  });
  shutdown.add('notifiers', () => notifiers.stop());
  listeners.push(...notifiers.listeners);
  webhookRetryBytes = notifiers.webhookRetryBytes;
  const push = await createPushParts(config, {
    redis,
    subscriptions: backend.push,
    clock,
    logger,
    metrics,
    deliveries,
    revoked: (subscription) =>
      subscription.token !== undefined &&
      tokens.isRevoked({ sub: subscription.userId, role: 'device', ...subscription.token }),
  });
  shutdown.add('push', () => push.close());
  listeners.push(push.notifier);
  // Loaded only when configured: the Slack SDK costs start-up time and memory a node without it never needs.
  const slack = config.slack
    ? (await import('./slack/slack-setup.js')).startSlack(config.slack, {
        service,
        directory,
        deliveries,
        links,
        publicUrl: () => config.publicUrl ?? nodeUrl,
        store: backend.slack,
        clock,
        logger,
        registry: metrics.registry,
      })
    : undefined;
  if (slack) {
    shutdown.add('slack', () => slack.close());
    listeners.push(slack.notifier);
  }
  shutdown.add('directory reload', directory.reloadOnHangup());

  const hostPolicy = { allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins };
  const chatTokens = new ChatTokens(secret);
  const publicUrl = () => config.publicUrl ?? nodeUrl;
  const chatDoor = new ChatDoor({
    sessions: backend.sessions,
    tokens: chatTokens,
    service,
    clock,
    logger,
    sessionTtlMs: config.mcpSessionTtlMs,
    elicitation: config.elicitation,
    publicUrl,
  });
  // The inquiry card (MCP Apps) is built into the web app's folder.
  const cardFile = options.webRoot ? join(options.webRoot, 'inquiry-card.html') : undefined;
  const cards = new InquiryCards({ tokens: chatTokens, publicUrl, ...(cardFile ? { file: cardFile } : {}) });
  const app = createApp({
    service,
    store,
    tokens,
    links,
    deliveries,
    deviceDeliveries,
    limiter,
    heldCalls,
    clock,
    logger,
    metrics,
    hostPolicy,
    heartbeatMs: config.heartbeatMs,
    maxWaitMs: config.tiers.serviceMs,
    draining: () => draining,
    storeReady: () => !redis || redis.status === 'ready',
    tasks,
    standing,
    maxAnswerWindowMs: config.maxAnswerWindowMs,
    retentionMs: config.retentionMs,
    decisionLog: decisions.log,
    auditor,
    passkeys,
    revocations: revocationStore,
    isRevoked: (token) => revocations.isRevoked(token),
    pairing: {
      devices,
      sightings,
      wrongCodes,
      ttlMs: config.pairingTtlMs,
      ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    },
    push,
    chatDoor,
    cards,
    ...(slack ? { slack: slack.routes } : {}),
    version: VERSION,
    webRoot: options.webRoot,
  });
  const httpServer = createAdaptorServer({
    fetch: app.fetch,
    serverOptions: HTTP_SERVER_OPTIONS,
  }) as HttpServer;
  applyHttpLimits(httpServer, config.maxConnections, logger);
  const gateway = createDeviceGateway(httpServer, {
    service,
    store,
    tokens,
    limiter,
    clock,
    logger,
    hostPolicy,
    limits: { maxSocketsPerToken: config.maxSocketsPerToken, handshakesPerMin: config.handshakesPerMin },
    revocations,
    sightings,
    deliveries: deviceRecorder,
    adapter,
  });
  shutdown.add('http and socket.io', async () => {
    // io.close() also closes the HTTP server; give finished SSE responses a moment to flush.
    await within(clock, 2000, gateway.io.close());
    httpServer.closeAllConnections();
  });
  listeners.push(gateway.events);
  deviceCount = () => gateway.io.engine.clientsCount;
  timers.start();
  escalations.start();
  const sweeper = new DeadlineSweeper([timers, escalations], config.sweepMs);
  sweeper.start();
  shutdown.add('timers', () => {
    sweeper.stop();
    timers.stop();
    escalations.stop();
  });

  const { port, url } = await listenOn(httpServer, config.port, config.host);
  nodeUrl = url;
  listeningPort = port;
  logger.info(
    {
      url,
      store: backend.kind,
      ...(backend.database ? { file: backend.database.path } : {}),
    },
    'node listening',
  );

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      draining = true;
      logger.info({ held: heldCalls.size }, 'draining');
      await within(clock, config.drainMs, heldCalls.whenEmpty());
      heldCalls.releaseAll('node shutting down');
      await heldCalls.whenEmpty();
      await shutdown.closeAll();
      logger.info('node stopped');
    })();
    return closing;
  };
  return { url, port, nodeId, tokens, links, secretCreated, logger, directory, devices, auditor, close };
}
