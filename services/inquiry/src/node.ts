import { randomBytes } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import { hostname } from 'node:os';
import { LinkTokens, TokenService } from '@hitl/auth';
import { type Inquiry, listenOn, PAIRING_LIMITS } from '@hitl/protocol';
import {
  type DeviceStore,
  MemoryDeviceStore,
  MemoryRevocationStore,
  MemoryTaskStore,
  RedisDeviceStore,
  RedisRevocationStore,
  RedisTaskStore,
  SqliteDeviceStore,
  SqliteRevocationStore,
  SqliteTaskStore,
  type TaskStore,
} from '@hitl/store';
import { createAdaptorServer } from '@hono/node-server';
import { RevocationCache } from './auth/revocation-cache.js';
import { loadOrCreateSecret } from './auth/secret.js';
import type { Config } from './config.js';
import { createDecisionParts } from './core/decision-setup.js';
import { InquiryService } from './core/inquiry-service.js';
import { type Clock, type InquiryEvents, systemClock, within } from './core/ports.js';
import { createRateLimiter } from './core/rate-limit.js';
import { EscalationTimers, ServiceTimers } from './core/service-timers.js';
import { DeviceSightings } from './devices/device-sightings.js';
import type { DirectoryHolder } from './directory/directory.js';
import { openDirectory } from './directory/open-directory.js';
import { type EmbeddedParts, openEmbeddedStore } from './embedded-store.js';
import { createApp } from './http/app.js';
import { applyHttpLimits, HTTP_SERVER_OPTIONS } from './http/http-limits.js';
import { createLogger, type Logger } from './logger.js';
import { HeldCalls } from './mcp/held-calls.js';
import { NodeMetrics } from './metrics.js';
import { MemoryDeliveryLog, RedisDeliveryLog, SqliteDeliveryLog } from './notify/delivery-log.js';
import {
  MemoryDeviceDeliveryLog,
  RedisDeviceDeliveryLog,
  SqliteDeviceDeliveryLog,
} from './notify/device-delivery-log.js';
import { startNotifiers } from './notify/notifiers.js';
import { createPushParts } from './push/push-setup.js';
import { connectRedis } from './redis.js';
import { ShutdownList } from './shutdown-list.js';
import { DeviceDeliveryRecorder } from './socket/delivery-recorder.js';
import { createDeviceGateway } from './socket/gateway.js';
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
  const directory = await openDirectory(config.directoryFile, logger);
  const redis = await connectRedis(config, logger);
  if (redis) shutdown.add('redis', () => redis.close());
  // Without Redis: the durable SQLite file (refuses a second process on the same state dir) or memory.
  const embedded = redis ? undefined : openEmbeddedStore(config);
  if (embedded) shutdown.add('embedded store', () => embedded.close());
  const store = redis?.store ?? (embedded as EmbeddedParts).store;
  shutdown.add('inquiry store', () => store.close());
  const limiter = createRateLimiter(config.ratePerMin, redis?.client, 'hitl:rate', { clock });
  const wrongCodes = createRateLimiter(PAIRING_LIMITS.wrongCodesPerMin, redis?.client, 'hitl:pairing:wrong', {
    clock,
  });
  // The limiters' last pending points go out before the client closes.
  shutdown.add('rate limiters', () => Promise.all([limiter.close(), wrongCodes.close()]));
  const revocationStore = redis
    ? new RedisRevocationStore({ redis: redis.client })
    : embedded?.database
      ? new SqliteRevocationStore({ database: embedded.database })
      : new MemoryRevocationStore();
  shutdown.add('revocation store', () => revocationStore.close());
  // MCP task handles live beside the inquiries: any node answers for any task, after restarts too.
  const tasks: TaskStore = redis
    ? new RedisTaskStore({ redis: redis.client })
    : embedded?.database
      ? new SqliteTaskStore({ db: embedded.database.db, now: () => clock.now() })
      : new MemoryTaskStore(() => clock.now());
  shutdown.add('task store', () => tasks.close());
  // Pairings and device records live beside the inquiries: pair on one node, claim on another.
  const devices: DeviceStore = redis
    ? new RedisDeviceStore({ redis: redis.client })
    : embedded?.database
      ? new SqliteDeviceStore(embedded.database.db)
      : new MemoryDeviceStore();
  shutdown.add('device store', () => devices.close());
  const sightings = new DeviceSightings({ devices, clock, logger });
  const revocations = new RevocationCache(revocationStore, logger, config.revocationPollMs);
  shutdown.add('revocation feed', () => revocations.stop());
  await revocations.start();
  tokens.checkRevocations((claims) => revocations.isRevoked(claims));
  const heldCalls = new HeldCalls();
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
  const decisions = await createDecisionParts(config, {
    redis: redis?.client,
    database: embedded?.database?.db,
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
    },
    decisions,
    directory,
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
  const deliveries = redis
    ? new RedisDeliveryLog(redis.client, config.retentionMs)
    : embedded?.database
      ? new SqliteDeliveryLog(embedded.database.db)
      : new MemoryDeliveryLog();
  const deviceDeliveries = redis
    ? new RedisDeviceDeliveryLog({ redis: redis.client })
    : embedded?.database
      ? new SqliteDeviceDeliveryLog(embedded.database.db)
      : new MemoryDeviceDeliveryLog();
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
    redis: redis?.client,
    database: embedded?.database?.db,
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
  shutdown.add('directory reload', directory.reloadOnHangup());

  const hostPolicy = { allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins };
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
    storeReady: () => !redis || redis.client.status === 'ready',
    tasks,
    maxAnswerWindowMs: config.maxAnswerWindowMs,
    retentionMs: config.retentionMs,
    decisionLog: decisions.log,
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
    adapter: redis?.adapter,
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
  shutdown.add('timers', () => {
    timers.stop();
    escalations.stop();
  });

  const { port, url } = await listenOn(httpServer, config.port, config.host);
  nodeUrl = url;
  logger.info(
    {
      url,
      store: embedded?.kind ?? 'redis',
      ...(embedded?.database ? { file: embedded.database.path } : {}),
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
  return { url, port, nodeId, tokens, links, secretCreated, logger, directory, devices, close };
}
