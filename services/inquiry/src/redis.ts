import { connectSharedRedis, RedisInquiryStore } from '@hitl/store';
import type { createShardedAdapter } from '@socket.io/redis-adapter';
import { Cluster, type Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createRoomAwareAdapter } from './socket/room-aware-adapter.js';

export interface RedisParts {
  client: Redis;
  store: RedisInquiryStore;
  adapter: ReturnType<typeof createShardedAdapter>;
  close(): Promise<void>;
}

/** Distributed mode: one Redis (or Cluster) client shared by the store, the rate limiter and Socket.IO. */
export async function connectRedis(config: Config, logger: Logger): Promise<RedisParts | undefined> {
  const client = connectSharedRedis(config, (error) =>
    logger.warn({ err: error.message }, 'redis connection error'),
  );
  if (!client) return undefined;
  const store = new RedisInquiryStore({ redis: client, retentionMs: config.retentionMs });
  // Socket.IO's own subscriber (sharded pub/sub; on a Cluster, one connection per master).
  const either = client as Redis | Cluster;
  const subscriber =
    either instanceof Cluster ? either.duplicate([], { shardedSubscribers: true }) : either.duplicate();
  subscriber.on('error', () => {});
  return {
    client,
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
