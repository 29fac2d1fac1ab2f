import type { Config } from '@hitl/runtime';
import { isUnreachableSubject, vapidKeysPath } from '@hitl/runtime';
import type { PushSubscriptionStore } from '@hitl/store';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from '../core/ports.js';
import { loadVapidKeys } from './load-vapid.js';
import { PushNotifier, type PushNotifierDeps } from './push-notifier.js';

/** A node's Web Push: where subscriptions live, the key browsers subscribe with, and the sender. */
export interface PushParts {
  subscriptions: PushSubscriptionStore;
  publicKey: string;
  allowHttpHosts: readonly string[];
  /** Hears this node's created / resolved events and sends the pushes. */
  notifier: PushNotifier;
  /** Stops the notifier (the subscription store is the backend's to close). */
  close(): void;
}

/**
 * Loads or makes the VAPID keys (shared in Redis when there is one) and builds the notifier over the
 * backend's subscription store.
 * @throws SecretFileError when a keys file is unsafe or unusable
 */
export async function createPushParts(
  config: Config,
  deps: {
    redis?: Redis | Cluster;
    subscriptions: PushSubscriptionStore;
    clock: Clock;
    logger: Logger;
    metrics?: PushNotifierDeps['metrics'];
    deliveries?: PushNotifierDeps['deliveries'];
    revoked?: PushNotifierDeps['revoked'];
  },
): Promise<PushParts> {
  const { redis, subscriptions, clock, logger } = deps;
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
    close: () => notifier.close(),
  };
}
