import { Cluster, Redis } from 'ioredis';

/** Where the shared store lives: one Redis (`REDIS_URL`) or a Cluster's seeds (`REDIS_CLUSTER_NODES`). */
export interface SharedRedisTarget {
  redisUrl?: string;
  redisClusterNodes?: { host: string; port: number }[];
}

/**
 * Fail fast while Redis is away: callers get a clear retryable error instead of a hang. A queued
 * command fails after two quick attempts (~0.3 s); reconnects keep trying, and the process is back
 * within a second of Redis.
 */
const CLIENT_OPTIONS = {
  maxRetriesPerRequest: 2,
  connectTimeout: 5000,
  enableOfflineQueue: true,
  retryStrategy: (times: number) => Math.min(times * 100, 1000),
};

/**
 * The one client every process of the shared store opens (node, `hitl proxy`, `hitl decide`,
 * `hitl token revoke`): a Cluster client when cluster seeds are given (they win over a URL), else a
 * single Redis client; `undefined` when neither is set (embedded mode).
 *
 * Typed as `Redis` for the libraries that accept either; a Cluster serves the same commands, and the
 * stores keep each script's keys in one slot with hash tags.
 *
 * @param onError told of every connection error (ioredis prints them to the console without one)
 */
export function connectSharedRedis(
  target: SharedRedisTarget,
  onError: (error: Error) => void = () => {},
): Redis | undefined {
  if (!target.redisUrl && !target.redisClusterNodes) return undefined;
  const client = target.redisClusterNodes
    ? new Cluster(target.redisClusterNodes, { redisOptions: CLIENT_OPTIONS })
    : new Redis(target.redisUrl ?? '', CLIENT_OPTIONS);
  client.on('error', onError);
  return client as Redis;
}
