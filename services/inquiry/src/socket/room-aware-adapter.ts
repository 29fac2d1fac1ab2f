import { createShardedAdapter } from '@socket.io/redis-adapter';
import type { Cluster, Redis } from 'ioredis';

type AdapterFactory = ReturnType<typeof createShardedAdapter>;
/** A cluster message as the adapter publishes it (socket.io-adapter's `ClusterMessage`). */
type ClusterMessage = { type: number };
/** The parts of the sharded adapter (socket.io redis-adapter 8.3) this wrapper reads or replaces. */
interface ShardedInternals {
  readonly rooms: Map<string, Set<string>>;
  /** Socket id → its rooms (a socket's own room is private: never on a channel of its own). */
  readonly sids: Map<string, Set<string>>;
  /** The namespace's own channel; a room's is `${channel}${room}#`. */
  readonly channel: string;
  on(event: 'create-room' | 'delete-room', listener: (room: string) => void): unknown;
  computeChannel(message: ClusterMessage): string;
  doPublish(message: ClusterMessage): Promise<string>;
}

/** Socket.IO's cluster message type of a broadcast (`MessageType.BROADCAST` in socket.io-adapter). */
const BROADCAST = 3;

/**
 * Socket.IO's sharded Redis adapter in dynamic mode (one channel per room, subscribed by the nodes
 * with a socket in that room), with one change: a room emit is published only when a node other
 * than this one subscribes the room's channel. Redis pub/sub has no "not to myself", so without
 * this a node whose user has every device on it hears each of its own emits back (issue 22), and an
 * emit to a room nobody watches (the ops room with no console open) is still sent everywhere it
 * could go.
 *
 * The check is `PUBSUB SHARDNUMSUB` of the room's channel, which replaces the `SPUBLISH` when nobody
 * else listens. It is as safe as the publish it replaces: a publish reaches only the subscriptions
 * Redis holds when it runs, and the count is read at that point. This node counts itself only once
 * its own subscription is known to be live (a PING on the subscriber connection answered after the
 * `SSUBSCRIBE`), and forgets that whenever the connection drops; in doubt it publishes.
 *
 * On a Redis Cluster every room emit is published (the count would have to come from the master of
 * the channel's slot, which ioredis does not route to); the channels still spread over the masters.
 */
export function createRoomAwareAdapter(
  pubClient: Redis | Cluster,
  subClient: Redis | Cluster,
  opts: Parameters<typeof createShardedAdapter>[2],
): AdapterFactory {
  const sharded = createShardedAdapter(pubClient, subClient, opts);
  if (pubClient.isCluster || subClient.isCluster) return sharded;
  const pub = pubClient as Redis;
  const sub = subClient as Redis;
  // Socket.IO calls the factory with `new`: a function expression (not an arrow) returning the adapter.
  return function roomAwareAdapter(nsp) {
    const instance = sharded(nsp);
    const adapter = instance as unknown as ShardedInternals;
    const live = new LiveRooms(sub, (room) => adapter.rooms.has(room));
    adapter.on('create-room', (room: string) => {
      if (!adapter.sids.has(room)) live.joined(room);
    });
    adapter.on('delete-room', (room: string) => live.left(room));
    sub.on('close', () => live.reset());
    sub.on('ready', () => live.confirmAll(adapter.rooms.keys()));
    const counts = new ShardNumSubBatch(pub);
    const publish = adapter.doPublish.bind(adapter);
    adapter.doPublish = async (message: ClusterMessage) => {
      const channel = adapter.computeChannel(message);
      if (message.type !== BROADCAST || channel === adapter.channel) return publish(message);
      const room = channel.slice(adapter.channel.length, -1);
      const subscribers = await counts.of(channel);
      // Read after the count: a drop of the subscriber connection noticed meanwhile counts.
      const local = adapter.rooms.has(room);
      // A room of this node whose subscription is not confirmed live: publish (in doubt).
      if (local && !live.has(room)) return publish(message);
      return subscribers > (local ? 1 : 0) ? publish(message) : '';
    };
    // Every SSUBSCRIBE asked for so far is in place once a PING sent after it answers (one connection,
    // in order): a device's sync reads only after that, so an emit it misses is one its read sees.
    Object.assign(instance, { subscriptionsSettled: () => sub.ping().then(() => undefined) });
    return instance;
  };
}

/**
 * Settles once the room subscriptions this node has asked for so far are live in Redis (at once for
 * adapters without the method: in memory, or a Cluster, where the subscriptions spread over masters).
 */
export async function subscriptionsSettled(adapter: object): Promise<void> {
  const settled = (adapter as { subscriptionsSettled?: () => Promise<void> }).subscriptionsSettled;
  await settled?.().catch(() => {});
}

/** Rooms of this node whose channel subscription is known to be live on the subscriber connection. */
class LiveRooms {
  private readonly confirmed = new Set<string>();
  /** The join each unconfirmed room's PING stands for (a room left and joined again starts over). */
  private readonly joins = new Map<string, number>();
  private joinCount = 0;
  private generation = 0;

  constructor(
    private readonly sub: Redis,
    private readonly isLocal: (room: string) => boolean,
  ) {}

  has(room: string): boolean {
    return this.confirmed.has(room);
  }

  /** The adapter has just sent its SSUBSCRIBE for the room: a PING behind it proves it done. */
  joined(room: string): void {
    this.confirm([room]);
  }

  left(room: string): void {
    this.joins.delete(room);
    this.confirmed.delete(room);
  }

  /** The connection dropped: nothing is known to be subscribed until it is back and confirmed. */
  reset(): void {
    this.generation += 1;
    this.joins.clear();
    this.confirmed.clear();
  }

  /** After a reconnect ioredis re-sends the subscriptions; confirm them once they are in. */
  confirmAll(rooms: Iterable<string>): void {
    // ioredis re-subscribes in its own 'ready' handling; the PING queued after it lands behind it.
    setImmediate(() => this.confirm([...rooms]));
  }

  private confirm(rooms: string[]): void {
    const generation = this.generation;
    const joins = rooms.map((room) => {
      this.joinCount += 1;
      this.joins.set(room, this.joinCount);
      return [room, this.joinCount] as const;
    });
    this.sub.ping().then(
      () => {
        if (generation !== this.generation) return;
        for (const [room, join] of joins) {
          if (this.joins.get(room) !== join || !this.isLocal(room)) continue;
          this.joins.delete(room);
          this.confirmed.add(room);
        }
      },
      () => {},
    );
  }
}

/**
 * `PUBSUB SHARDNUMSUB` for the channels asked in one tick, in one command: an event goes to each
 * audience member's room and the ops room in the same synchronous loop, so those counts share a
 * round trip.
 */
class ShardNumSubBatch {
  private batch = new Map<string, Settle[]>();

  constructor(private readonly client: Redis) {}

  of(channel: string): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.batch.size === 0) queueMicrotask(() => void this.flush());
      const waiting = this.batch.get(channel) ?? [];
      waiting.push({ resolve, reject });
      this.batch.set(channel, waiting);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = new Map();
    try {
      // The reply alternates channel and count: [ch1, n1, ch2, n2, ...].
      const reply = (await this.client.call('PUBSUB', 'SHARDNUMSUB', ...batch.keys())) as (string | number)[];
      const counts = new Map<string, number>();
      for (let i = 0; i + 1 < reply.length; i += 2) counts.set(String(reply[i]), Number(reply[i + 1]));
      // A channel missing from the reply counts as listened to: publish rather than drop.
      for (const [channel, waiting] of batch) {
        for (const { resolve } of waiting) resolve(counts.get(channel) ?? Number.POSITIVE_INFINITY);
      }
    } catch (error) {
      for (const waiting of batch.values()) for (const { reject } of waiting) reject(error);
    }
  }
}

interface Settle {
  resolve(count: number): void;
  reject(error: unknown): void;
}
