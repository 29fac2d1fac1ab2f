import type { Inquiry } from '@hitl/protocol';
import { Cluster, type Redis } from 'ioredis';
import { decodeMessage } from './codec.js';

/** What the feed calls back into the store. */
export interface FeedHandlers {
  /** A resolution published by any node (pub/sub: at most once). */
  resolved(inquiry: Inquiry): void;
  /** The subscription is back after a drop: re-read whatever may have been missed meanwhile. */
  resubscribed(): Promise<void>;
}

/**
 * The store's one subscription to the resolutions channel, on a dedicated connection (a
 * `duplicate()` of the store's client, closed by {@link ResolutionFeed.close}).
 */
export class ResolutionFeed {
  private readonly subscriber: Redis | Cluster;
  private subscribed: Promise<void> | undefined;
  private closed = false;
  /**
   * When (`performance.now()`) the subscription last became live, undefined while it may not be:
   * a message published after this moment reaches this feed, unless the value is gone by then.
   */
  liveSince: number | undefined;

  constructor(
    source: Redis | Cluster,
    private readonly channel: string,
    private readonly handlers: FeedHandlers,
  ) {
    // Same options, same servers (the two duplicate() signatures differ, hence the branch).
    this.subscriber = source instanceof Cluster ? source.duplicate() : source.duplicate();
    // Connection errors are retried by ioredis and repaired on 'ready'; callers see failures through
    // their own commands. Without a listener ioredis prints every failed reconnect to the console.
    this.subscriber.on('error', () => {});
    this.subscriber.on('message', (from: string, message: string) => {
      if (from !== this.channel) return;
      const inquiry = decodeMessage(message);
      if (inquiry) handlers.resolved(inquiry);
    });
    // 'ready' is emitted before ioredis re-sends its own SUBSCRIBE, so subscribing again here and
    // awaiting the reply is what proves the subscription is live before state is re-read.
    this.subscriber.on('ready', () => void this.resubscribe());
    this.subscriber.on('close', () => {
      this.liveSince = undefined;
    });
  }

  /** Settles once the subscription is live; retried on the next call after a failure. */
  ready(): Promise<void> {
    this.subscribed ??= this.subscribe();
    return this.subscribed;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.liveSince = undefined;
    this.subscriber.disconnect();
  }

  private subscribe(): Promise<void> {
    this.liveSince = undefined;
    const subscribed = this.subscriber.subscribe(this.channel).then(() => {
      // Live from (at the latest) the reply, if no drop came in between ('close' clears it).
      if (!this.closed && this.subscriber.status === 'ready') this.liveSince = performance.now();
    });
    subscribed.catch(() => {
      if (this.subscribed === subscribed) this.subscribed = undefined;
    });
    return subscribed;
  }

  private async resubscribe(): Promise<void> {
    if (this.closed) return;
    const subscribed = this.subscribe();
    this.subscribed = subscribed;
    try {
      await subscribed;
      await this.handlers.resubscribed();
    } catch {
      // The connection dropped again; the next 'ready' repeats this.
    }
  }
}
