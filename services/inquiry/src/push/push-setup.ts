import {
  MemoryPushSubscriptionStore,
  type PushSubscriptionStore,
  RedisPushSubscriptionStore,
  type SqliteDatabase,
  SqlitePushSubscriptionStore,
} from '@hitl/store';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../core/ports.js';
import { loadVapidKeys } from './load-vapid.js';
import { PushNotifier, type PushNotifierDeps } from './push-notifier.js';
import { isUnreachableSubject, vapidKeysPath } from './vapid-keys.js';

/** A node's Web Push: where subscriptions live, the key browsers subscribe with, and the sender. */
export interface PushParts {
  subscriptions: PushSubscriptionStore;
  publicKey: string;
  allowHttpHosts: readonly string[];
  /** Hears this node's created / resolved events and sends the pushes. */
  notifier: PushNotifier;
  close(): Promise<void>;
}

/**
 * Opens the subscription store beside the node's inquiries (Redis, the SQLite state file, or memory),
 * loads or makes the VAPID keys, and builds the notifier.
 * @throws SecretFileError when a keys file is unsafe or unusable
 */
export async function createPushParts(
  config: Config,
  deps: {
    redis?: Redis | Cluster;
    database?: SqliteDatabase;
    clock: Clock;
    logger: Logger;
    metrics?: PushNotifierDeps['metrics'];
    deliveries?: PushNotifierDeps['deliveries'];
    revoked?: PushNotifierDeps['revoked'];
  },
): Promise<PushParts> {
  const { redis, database, clock, logger } = deps;
  const vapid = await loadVapidKeys(config.push.vapid, { stateDir: config.stateDir, redis });
  // Debug, not info: nothing may be written before the node's own 'node listening' line (a start
  // banner reader waits for it), and a 403 from a push service warns with the subject hint anyway.
  if (vapid.created) logger.debug({ source: vapid.source }, 'push: made a new VAPID key pair');
  if (isUnreachableSubject(vapid.keys.subject)) {
    const where =
      vapid.source === 'file'
        ? `"subject" in ${vapidKeysPath(config.stateDir)}`
        : vapid.source === 'redis'
          ? '"subject" in the Redis key hitl:push:vapid, or set HITL_VAPID_* on every node'
          : 'HITL_VAPID_SUBJECT';
    logger.debug(
      { subject: vapid.keys.subject },
      `push: the VAPID subject is a placeholder; Apple's push service refuses it (iPhone, iPad, Safari). Set ${where} to a real mailto: or https: contact`,
    );
  }
  const subscriptions: PushSubscriptionStore = redis
    ? new RedisPushSubscriptionStore({ redis })
    : database
      ? new SqlitePushSubscriptionStore(database)
      : new MemoryPushSubscriptionStore();
  const notifier = new PushNotifier({
    subscriptions,
    vapid: vapid.keys,
    allowHttpHosts: config.push.allowHttpHosts,
    clock,
    logger,
    metrics: deps.metrics,
    deliveries: deps.deliveries,
    revoked: deps.revoked,
  });
  return {
    subscriptions,
    publicKey: vapid.keys.publicKey,
    allowHttpHosts: config.push.allowHttpHosts,
    notifier,
    close: async () => {
      notifier.close();
      await subscriptions.close();
    },
  };
}
