import { join } from 'node:path';
import {
  type AuditChainStore,
  connectSharedRedis,
  type DecisionClaims,
  type DecisionLog,
  type DeliveryLog,
  type DeviceDeliveryLog,
  type DeviceStore,
  type InquiryStore,
  inquiryDatabasePath,
  type McpSessionStore,
  MemoryAuditChain,
  MemoryDecisionLog,
  MemoryDeliveryLog,
  MemoryDeviceDeliveryLog,
  MemoryDeviceStore,
  MemoryInquiryStore,
  MemoryPasskeyStore,
  MemoryProxyStore,
  MemoryPushSubscriptionStore,
  MemoryRevocationStore,
  MemorySessionStore,
  MemorySlackStore,
  MemoryStandingStore,
  MemoryTaskStore,
  openStateDatabase,
  type PasskeyStore,
  type ProxyStore,
  type PushSubscriptionStore,
  RedisAuditChain,
  RedisDecisionClaims,
  RedisDecisionLog,
  RedisDeliveryLog,
  RedisDeviceDeliveryLog,
  RedisDeviceStore,
  RedisInquiryStore,
  RedisPasskeyStore,
  RedisProxyStore,
  RedisPushSubscriptionStore,
  RedisRevocationStore,
  RedisSessionStore,
  RedisSlackStore,
  RedisStandingStore,
  RedisTaskStore,
  type RevocationStore,
  type SlackStore,
  SqliteAuditChain,
  SqliteDecisionLog,
  SqliteDeliveryLog,
  SqliteDeviceDeliveryLog,
  SqliteDeviceStore,
  SqliteInquiryStore,
  SqlitePasskeyStore,
  SqliteProxyStore,
  SqlitePushSubscriptionStore,
  SqliteRevocationStore,
  SqliteSessionStore,
  SqliteSlackStore,
  SqliteStandingStore,
  SqliteTaskStore,
  type StandingStore,
  type StateDatabase,
  type TaskStore,
} from '@hitl/store';
import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { ShutdownList } from './shutdown-list.js';

/** Where a process keeps its state: a Redis (or Cluster), the SQLite state file, or its own memory. */
export type BackendKind = 'redis' | 'sqlite' | 'memory';

/**
 * Every store of the product on one backend, and the one list that closes them. Each store is made
 * on first use (a proxy never opens the node's inquiries, nor the node the proxy's grants) and
 * registers its close on {@link shutdown} then, so it closes before the connection it runs on.
 */
export interface Backend {
  kind: BackendKind;
  /** The shared client (`REDIS_URL` or `REDIS_CLUSTER_NODES`), for what beside the stores needs it. */
  redis: Redis | undefined;
  /** The node's state file (`sqlite` only), opened on first use: held by this process alone. */
  readonly database: StateDatabase | undefined;
  readonly inquiries: InquiryStore;
  /** The audit chain: the inquiries' steps write its outbox (memory, SQLite) or name records in it (Redis). */
  readonly audit: AuditChainStore;
  /** Passkeys and the challenges issued for them. */
  readonly passkeys: PasskeyStore;
  readonly tasks: TaskStore;
  /** MCP sessions of clients that take elicitation (the agent's chat). */
  readonly sessions: McpSessionStore;
  /** Pairings and device records. */
  readonly devices: DeviceStore;
  /** Standing approvals ("approve and allow the same for a while"). */
  readonly standing: StandingStore;
  readonly revocations: RevocationStore;
  readonly push: PushSubscriptionStore;
  /** Webhook, email and push deliveries. */
  readonly deliveries: DeliveryLog;
  /** What each device socket was handed. */
  readonly deviceDeliveries: DeviceDeliveryLog;
  /** The decision audit log. */
  readonly decisions: DecisionLog;
  /** Which node decides an inquiry's fallback (shared backends only). */
  readonly decisionClaims: DecisionClaims | undefined;
  /** Where Slack messages were posted, and one-time claims (Slack as a device). */
  readonly slack: SlackStore;
  /** The proxy's grants and operations (SQLite: its own `proxy.db`, one proxy process per state dir). */
  readonly proxy: ProxyStore;
  /** What was opened, newest first on `closeAll()`: the caller adds its own parts too. */
  shutdown: ShutdownList;
}

export interface BackendOptions {
  logger: Logger;
  /** The time the stores stamp with (tests move it); default the system's. */
  clock?: { now(): number };
  /** The list to register on (the caller's, when it opened parts before); default a new one. */
  shutdown?: ShutdownList;
}

/**
 * The one place the backend is chosen: Redis when `REDIS_URL` or `REDIS_CLUSTER_NODES` is set (the
 * one client factory, `connectSharedRedis`), else the SQLite state file in `HITL_STATE_DIR`, else
 * (`HITL_STORE=memory`) this process's memory. Nothing but the Redis client is opened here.
 */
export function openBackend(config: Config, options: BackendOptions): Backend {
  const { logger } = options;
  const clock = options.clock ?? Date;
  const now = () => clock.now();
  const shutdown = options.shutdown ?? new ShutdownList(logger);
  const redis = connectSharedRedis(config, (error) =>
    logger.warn({ err: error.message }, 'redis connection error'),
  );
  if (redis) shutdown.add('redis', () => redis.quit().catch(() => redis.disconnect()));
  const kind: BackendKind = redis ? 'redis' : config.embeddedStore;
  const pick = <T>(
    name: string,
    make: { redis: (r: Redis) => T; sqlite: (d: StateDatabase) => T; memory: () => T },
  ) =>
    once(name, shutdown, () =>
      redis
        ? make.redis(redis)
        : kind === 'sqlite'
          ? make.sqlite(database() as StateDatabase)
          : make.memory(),
    );
  const database = once('state file', shutdown, () =>
    kind === 'sqlite' ? openStateDatabase(inquiryDatabasePath(config.stateDir)) : undefined,
  );
  // The audit chain beside the inquiries: a decision's store step writes its record to the outbox.
  const audit = pick<AuditChainStore>('audit chain', {
    redis: (r) => new RedisAuditChain({ redis: r }),
    sqlite: (d) => new SqliteAuditChain(d),
    memory: () => new MemoryAuditChain(),
  });
  const inquiries = pick<InquiryStore>('inquiry store', {
    redis: (r) => new RedisInquiryStore({ redis: r, retentionMs: config.retentionMs }),
    sqlite: (d) =>
      new SqliteInquiryStore({
        database: d,
        retentionMs: config.retentionMs,
        outbox: audit() as SqliteAuditChain,
      }),
    memory: () =>
      new MemoryInquiryStore({ retentionMs: config.retentionMs, outbox: audit() as MemoryAuditChain }),
  });
  // Passkeys and their single-use challenges: any node verifies an approval.
  const passkeys = pick<PasskeyStore>('passkey store', {
    redis: (r) => new RedisPasskeyStore({ redis: r }),
    sqlite: (d) => new SqlitePasskeyStore(d.db),
    memory: () => new MemoryPasskeyStore(),
  });
  // MCP task handles live beside the inquiries: any node answers for any task, after restarts too.
  const tasks = pick<TaskStore>('task store', {
    redis: (r) => new RedisTaskStore({ redis: r }),
    sqlite: (d) => new SqliteTaskStore({ db: d.db, now }),
    memory: () => new MemoryTaskStore(now),
  });
  // MCP sessions (clients that take elicitation) live beside the inquiries: any node serves them.
  const sessions = pick<McpSessionStore>('session store', {
    redis: (r) => new RedisSessionStore({ redis: r }),
    sqlite: (d) => new SqliteSessionStore({ db: d.db, now }),
    memory: () => new MemorySessionStore(now),
  });
  // Pairings and device records live beside the inquiries: pair on one node, claim on another.
  const devices = pick<DeviceStore>('device store', {
    redis: (r) => new RedisDeviceStore({ redis: r }),
    sqlite: (d) => new SqliteDeviceStore(d.db),
    memory: () => new MemoryDeviceStore(),
  });
  // Standing approvals too: ended on one node, refused on every node at the next use.
  const standing = pick<StandingStore>('standing approvals', {
    redis: (r) => new RedisStandingStore({ redis: r }),
    sqlite: (d) => new SqliteStandingStore(d.db),
    memory: () => new MemoryStandingStore(),
  });
  const revocations = pick<RevocationStore>('revocation store', {
    redis: (r) => new RedisRevocationStore({ redis: r }),
    sqlite: (d) => new SqliteRevocationStore({ database: d }),
    memory: () => new MemoryRevocationStore(),
  });
  const push = pick<PushSubscriptionStore>('push subscription store', {
    redis: (r) => new RedisPushSubscriptionStore({ redis: r }),
    sqlite: (d) => new SqlitePushSubscriptionStore(d.db),
    memory: () => new MemoryPushSubscriptionStore(),
  });
  const deliveries = pick<DeliveryLog>('delivery log', {
    redis: (r) => new RedisDeliveryLog(r, config.retentionMs),
    sqlite: (d) => new SqliteDeliveryLog(d.db),
    memory: () => new MemoryDeliveryLog(),
  });
  const deviceDeliveries = pick<DeviceDeliveryLog>('device delivery log', {
    redis: (r) => new RedisDeviceDeliveryLog({ redis: r }),
    sqlite: (d) => new SqliteDeviceDeliveryLog(d.db),
    memory: () => new MemoryDeviceDeliveryLog(),
  });
  const decisions = pick<DecisionLog>('decision log', {
    redis: (r) => new RedisDecisionLog({ redis: r, max: config.decisionLogMax }),
    sqlite: (d) => new SqliteDecisionLog({ db: d.db, max: config.decisionLogMax }),
    memory: () => new MemoryDecisionLog({ max: config.decisionLogMax, now }),
  });
  const slack = pick<SlackStore>('slack store', {
    redis: (r) => new RedisSlackStore(r, now),
    sqlite: (d) => new SqliteSlackStore(d.db, now),
    memory: () => new MemorySlackStore(now),
  });
  const decisionClaims = once('decision claims', shutdown, () =>
    redis ? new RedisDecisionClaims(redis) : undefined,
  );
  // Not the node's state file: the proxy keeps its own (`proxy.db`), so a node and a proxy can share a state dir.
  const proxy = once<ProxyStore>('proxy store', shutdown, () =>
    redis
      ? new RedisProxyStore({ redis })
      : kind === 'sqlite'
        ? new SqliteProxyStore({ path: join(config.stateDir, 'proxy.db') }, clock)
        : new MemoryProxyStore(clock),
  );
  return {
    kind,
    redis,
    get database() {
      return database();
    },
    get inquiries() {
      return inquiries();
    },
    get audit() {
      return audit();
    },
    get passkeys() {
      return passkeys();
    },
    get tasks() {
      return tasks();
    },
    get sessions() {
      return sessions();
    },
    get devices() {
      return devices();
    },
    get standing() {
      return standing();
    },
    get revocations() {
      return revocations();
    },
    get push() {
      return push();
    },
    get deliveries() {
      return deliveries();
    },
    get deviceDeliveries() {
      return deviceDeliveries();
    },
    get decisions() {
      return decisions();
    },
    get slack() {
      return slack();
    },
    get decisionClaims() {
      return decisionClaims();
    },
    get proxy() {
      return proxy();
    },
    shutdown,
  };
}

/** `make` run on the first call only; what it made is closed by `shutdown` (when it has a `close`). */
function once<T>(name: string, shutdown: ShutdownList, make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    if (made) return made.value;
    const value = make();
    made = { value };
    const closable = value as { close?: () => unknown } | undefined;
    if (typeof closable?.close === 'function') shutdown.add(name, () => closable.close?.());
    return value;
  };
}
