import type { ShutdownList } from '@hitl/runtime';
import type { createShardedAdapter } from '@socket.io/redis-adapter';
import { Cluster, type Redis } from 'ioredis';
import { createRoomAwareAdapter } from './room-aware-adapter.js';

/**
 * Socket.IO's sharded Redis adapter on the node's client, with its own subscriber (sharded pub/sub;
 * on a Cluster, one connection per master), closed by `shutdown`.
 */
export function socketAdapter(
  client: Redis,
  shutdown: ShutdownList,
): ReturnType<typeof createShardedAdapter> {
  const either = client as Redis | Cluster;
  const subscriber =
    either instanceof Cluster ? either.duplicate([], { shardedSubscribers: true }) : either.duplicate();
  subscriber.on('error', () => {});
  shutdown.add('socket.io subscriber', () => subscriber.disconnect());
  // A channel per room, subscribed by the nodes that have a socket in it ('dynamic'): a user's
  // events reach only the nodes holding that user's devices, and the channels spread over a
  // Cluster's slots; an emit nobody else listens to is not published at all. Connection-state
  // recovery stays off (this adapter does not offer it).
  return createRoomAwareAdapter(client, subscriber, {
    channelPrefix: 'hitl:socket.io',
    subscriptionMode: 'dynamic',
  });
}
