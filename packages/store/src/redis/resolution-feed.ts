import { Cluster, type Redis } from 'ioredis';

/** What the feed calls back into the store. */
export interface FeedHandlers {
  /** A resolution message for an inquiry this store watches (sharded pub/sub: at most once). */
  resolved(inquiryId: string, message: string): void;
  /** The subscriptions are back after a drop: re-read whatever may have been missed meanwhile. */
  resubscribed(): Promise<void>;
}

interface Watch {
  /** Local waiters on the inquiry. */
  count: number;
  /** Settles once the inquiry's channel is subscribed; undefined after a failure (retried). */
  subscribed: Promise<void> | undefined;
}

/**
 * The store's subscriptions to the per-inquiry resolution channels (sharded pub/sub, one channel
 * per inquiry in the inquiry's slot), on a dedicated connection (a `duplicate()` of the store's
 * client, closed by {@link ResolutionFeed.close}). A channel is subscribed while this store has a
 * waiter on that inquiry, so a node hears only the resolutions it waits on.
 */
export class ResolutionFeed {
  private readonly subscriber: Redis | Cluster;
  private readonly watches = new Map<string, Watch>();
  private closed = false;

  constructor(
    source: Redis | Cluster,
    private readonly channelOf: (inquiryId: string) => string,
    private readonly handlers: FeedHandlers,
  ) {
    // Same options, same servers (the two duplicate() signatures differ, hence the branch); on a
    // Cluster, SSUBSCRIBE goes to the master of each channel's slot.
    this.subscriber =
      source instanceof Cluster ? source.duplicate([], { shardedSubscribers: true }) : source.duplicate();
    // Connection errors are retried by ioredis and repaired on 'ready'; callers see failures through
    // their own commands. Without a listener ioredis prints every failed reconnect to the console.
    this.subscriber.on('error', () => {});
    this.subscriber.on('smessage', (channel: string, message: string) => {
      const inquiryId = idOf(channel);
      if (inquiryId !== undefined && this.watches.has(inquiryId)) handlers.resolved(inquiryId, message);
    });
    // 'ready' is emitted before ioredis re-sends its own SSUBSCRIBEs, so subscribing again here and
    // awaiting the replies is what proves the subscriptions are live before state is re-read.
    this.subscriber.on('ready', () => void this.resubscribe());
    // On a Cluster a master's subscriber connection is replaced without a 'ready' of the whole
    // client: the group says so with 'subscribersReady' (after a slots refresh), and the same applies.
    if (this.subscriber instanceof Cluster)
      this.subscriber.on('subscribersReady', () => void this.resubscribe());
  }

  /**
   * Adds a waiter on the inquiry; the first one subscribes its channel. Settles once the channel is
   * live (read state only after that). Every call needs one {@link unwatch}, whatever happened.
   */
  watch(inquiryId: string): Promise<void> {
    let watch = this.watches.get(inquiryId);
    if (!watch) {
      watch = { count: 0, subscribed: undefined };
      this.watches.set(inquiryId, watch);
    }
    watch.count += 1;
    watch.subscribed ??= this.subscribe(inquiryId, watch);
    return watch.subscribed;
  }

  /** Removes a waiter; the last one unsubscribes. True when none is left. */
  unwatch(inquiryId: string): boolean {
    const watch = this.watches.get(inquiryId);
    if (!watch) return true;
    watch.count -= 1;
    if (watch.count > 0) return false;
    this.watches.delete(inquiryId);
    if (!this.closed) this.subscriber.sunsubscribe(this.channelOf(inquiryId)).catch(() => {});
    return true;
  }

  /** The subscriber connection answers (the readiness probe). */
  async ping(): Promise<void> {
    await this.subscriber.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscriber.disconnect();
  }

  private subscribe(inquiryId: string, watch: Watch): Promise<void> {
    const subscribed = this.subscriber.ssubscribe(this.channelOf(inquiryId)).then(() => undefined);
    subscribed.catch(() => {
      if (watch.subscribed === subscribed) watch.subscribed = undefined;
    });
    return subscribed;
  }

  private async resubscribe(): Promise<void> {
    if (this.closed || this.watches.size === 0) return;
    try {
      await Promise.all(
        [...this.watches].map(([inquiryId, watch]) => {
          watch.subscribed = this.subscribe(inquiryId, watch);
          return watch.subscribed;
        }),
      );
      await this.handlers.resubscribed();
    } catch {
      // The connection dropped again; the next 'ready' repeats this.
    }
  }
}

/** The inquiry id in a channel name `<prefix>resolved:{<id>}`. */
function idOf(channel: string): string | undefined {
  const open = channel.lastIndexOf('{');
  return open >= 0 && channel.endsWith('}') ? channel.slice(open + 1, -1) : undefined;
}
