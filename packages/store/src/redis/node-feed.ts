import { randomBytes } from 'node:crypto';
import { Cluster, type Redis } from 'ioredis';

/** What the feed calls back into the store. */
export interface FeedHandlers {
  /** A resolution on this node's channel: the inquiry id and the changing fields (JSON). */
  heard(inquiryId: string, message: string): void;
  /** The subscription is (back) live after a connect: re-read whatever may have been missed meanwhile. */
  resubscribed(): Promise<void>;
}

/**
 * This node's own wake-up channel: one sharded pub/sub channel, named by a random tag, subscribed
 * for the store's life on a dedicated connection (a `duplicate()` of the store's client, closed by
 * {@link NodeFeed.close}). A node that waits on an inquiry lists its tag in the inquiry's hash
 * (create-at-once-8 / create-1 for the creating node, watch-1 for any other); the script that ends
 * the inquiry publishes to the channel of every listed node but its own. So a wait costs no
 * subscribe and no unsubscribe, and a node hears only the resolutions it waits on.
 */
export class NodeFeed {
  /** 12 URL-safe characters (no comma: the hash lists tags comma-separated). */
  readonly tag = randomBytes(9).toString('base64url');
  readonly channel: string;
  private readonly subscriber: Redis | Cluster;
  /** Settles once the channel is subscribed; undefined after a failure (the next `live()` retries). */
  private subscribed: Promise<void> | undefined;
  /** Connection losses so far: the same count at two moments means no message was lost in between. */
  private drops = 0;
  /** The `drops` count under which the channel was last confirmed subscribed. */
  private liveIn = -1;
  private closed = false;

  constructor(source: Redis | Cluster, channelOf: (tag: string) => string, handlers: FeedHandlers) {
    this.channel = channelOf(this.tag);
    // Same options, same servers (the two duplicate() signatures differ, hence the branch); on a
    // Cluster, SSUBSCRIBE goes to the master of the channel's slot.
    this.subscriber =
      source instanceof Cluster ? source.duplicate([], { shardedSubscribers: true }) : source.duplicate();
    // Connection errors are retried by ioredis and repaired on 'ready'; callers see failures through
    // their own commands. Without a listener ioredis prints every failed reconnect to the console.
    this.subscriber.on('error', () => {});
    this.subscriber.on('close', () => {
      this.drops += 1;
    });
    this.subscriber.on('smessage', (channel: string, message: string) => {
      const space = message.indexOf(' ');
      if (channel === this.channel && space > 0)
        handlers.heard(message.slice(0, space), message.slice(space + 1));
    });
    // 'ready' is emitted before ioredis re-sends its own SSUBSCRIBE, so subscribing again here and
    // awaiting the reply is what proves the channel is live before state is re-read.
    const resubscribe = async () => {
      if (this.closed) return;
      try {
        this.subscribed = this.subscribe();
        await this.subscribed;
        await handlers.resubscribed();
      } catch {
        // The connection dropped again; the next 'ready' repeats this.
      }
    };
    this.subscriber.on('ready', () => void resubscribe());
    // Queued now, ahead of anything else on the connection: a PING sent after this (the readiness
    // probe) is answered only once the channel is live.
    void this.live().catch(() => {});
    // On a Cluster a master's subscriber connection is replaced without a 'ready' of the whole
    // client: the group says so with 'subscribersReady' (after a slots refresh), and the same applies.
    if (this.subscriber instanceof Cluster) this.subscriber.on('subscribersReady', () => void resubscribe());
  }

  /** Settles once the channel is subscribed: read state only after that. */
  live(): Promise<void> {
    this.subscribed ??= this.subscribe();
    return this.subscribed;
  }

  /**
   * A mark of "live now" (undefined when the channel is not confirmed live): {@link stayedLive} with
   * it later says whether every message published to the channel in between was received.
   */
  liveMark(): number | undefined {
    return this.liveIn === this.drops ? this.drops : undefined;
  }

  stayedLive(mark: number): boolean {
    return this.liveIn === mark && this.drops === mark;
  }

  /** The subscriber connection answers (the readiness probe). */
  async ping(): Promise<void> {
    await this.subscriber.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscriber.disconnect();
  }

  private subscribe(): Promise<void> {
    const drops = this.drops;
    const subscribed = this.subscriber.ssubscribe(this.channel).then(() => {
      if (this.drops === drops) this.liveIn = drops;
    });
    subscribed.catch(() => {
      if (this.subscribed === subscribed) this.subscribed = undefined;
    });
    return subscribed;
  }
}
