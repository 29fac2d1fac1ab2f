import { RedisInquiryStore } from '@hitl/store';
import type { createShardedAdapter } from '@socket.io/redis-adapter';
import { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createRoomAwareAdapter } from './socket/room-aware-adapter.js';

export interface RedisParts {
  client: Redis;
  store: RedisInquiryStore;
  adapter: ReturnType<typeof createShardedAdapter>;
  close(): Promise<void>;
}

/** Fail fast while Redis is away: callers get a clear retryable error instead of a hang. */
const CLIENT_OPTIONS = {
  maxRetriesPerRequest: 2,
  connectTimeout: 5000,
  enableOfflineQueue: true,
  // Reconnect quickly and keep trying: a queued command fails after two quick attempts (~0.3 s),
  // and the node is back within a second of Redis.
  retryStrategy: (times: number) => Math.min(times * 100, 1000),
};

/** Distributed mode: one Redis (or Cluster) client shared by the store, the rate limiter and Socket.IO. */
export async function connectRedis(config: Config, logger: Logger): Promise<RedisParts | undefined> {
  if (!config.redisUrl && !config.redisClusterNodes) return undefined;
  const client = config.redisClusterNodes
    ? new Cluster(config.redisClusterNodes, { redisOptions: CLIENT_OPTIONS })
    : new Redis(config.redisUrl ?? '', CLIENT_OPTIONS);
  client.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis connection error'));
  const store = new RedisInquiryStore({ redis: client, retentionMs: config.retentionMs });
  // Socket.IO's own subscriber (sharded pub/sub; on a Cluster, one connection per master).
  const subscriber =
    client instanceof Cluster ? client.duplicate([], { shardedSubscribers: true }) : client.duplicate();
  subscriber.on('error', () => {});
  // Typed as Redis for the libraries that accept either; a Cluster works with both.
  const shared = client as Redis;
  return {
    client: shared,
    store,
    // A channel per room, subscribed by the nodes that have a socket in it ('dynamic'): a user's
    // events reach only the nodes holding that user's devices, and the channels spread over a
    // Cluster's slots; an emit nobody else listens to is not published at all. Connection-state
    // recovery stays off (this adapter does not offer it).
    adapter: createRoomAwareAdapter(client, subscriber, {
      channelPrefix: 'hitl:socket.io',
      subscriptionMode: 'dynamic',
    }),
    close: async () => {
      subscriber.disconnect();
      await client.quit().catch(() => client.disconnect());
    },
  };
}
