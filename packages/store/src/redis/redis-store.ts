import type { Inquiry, Page, Resolution } from '@hitl/protocol';
import { Cluster, type Redis } from 'ioredis';
import { DEFAULT_RETENTION_MS } from '../defaults.js';
import { ResolvedListeners } from '../listeners.js';
import type {
  CreateOptions,
  CreateResult,
  InquiryStore,
  ListOptions,
  NewInquiry,
  ResolvedListener,
  ResolveResult,
  WaitOptions,
} from '../store.js';
import { InFlight, Waiters, waitForResolution } from '../waiters.js';
import { openClient } from './connection.js';
import { type StoreKeys, storeKeys } from './keys.js';
import { countPending, listDue, listPage, readInquiry } from './listing.js';
import { RecentIds } from './recent-ids.js';
import { ResolutionFeed } from './resolution-feed.js';
import { defineScripts } from './scripts.js';
import { type AskerHint, createInquiry, resolveInquiry, suggestAnswer, type WriteContext } from './writes.js';

/**
 * How long after its create an inquiry's first wait may skip the read (the send_inquiry path waits
 * at once; later waits read). Resolutions heard are kept twice as long.
 */
const FRESH_MS = 5000;

/** Options of {@link RedisInquiryStore}. */
export interface RedisStoreOptions {
  /**
   * A client the caller owns (a `Redis` or a `Cluster`; the store registers its Lua commands on it
   * and never closes it), or a URL for a client the store opens and closes itself.
   */
  redis: Redis | Cluster | string;
  /** Prepended to every key and channel; must not contain `{` or `}`. Default `hitl:`. */
  prefix?: string;
  /** How long an ended inquiry is kept, in ms (default 7 days); a pending one: its service deadline plus this. */
  retentionMs?: number;
  /** The clock (epoch ms) used for key TTLs; defaults to `Date.now`. */
  now?: () => number;
}

/**
 * The distributed store: inquiries in Redis (or a Redis Cluster), shared by every node. Creating and
 * resolving are Lua scripts (src/lua; one each on one Redis, one per slot on a Cluster), so the first
 * answer wins atomically; resolutions reach every
 * node over one pub/sub subscription per store instance, and waiters re-read state after any
 * reconnect because pub/sub is at-most-once.
 *
 * @example
 * const store = new RedisInquiryStore({ redis: process.env.REDIS_URL!, prefix: 'hitl:' });
 * const inquiry = await store.waitForResolution(inquiryId, { signal, deadline });
 * await store.close();
 */
export class RedisInquiryStore implements InquiryStore {
  private readonly redis: Redis | Cluster;
  private readonly ownsClient: boolean;
  private readonly keys: StoreKeys;
  private readonly now: () => number;
  private readonly ctx: WriteContext;
  private readonly feed: ResolutionFeed;
  private readonly waiters = new Waiters();
  private readonly listeners = new ResolvedListeners();
  private readonly inFlight = new InFlight();
  /** Inquiries this instance just created, with when the create was sent. */
  private readonly created = new RecentIds(FRESH_MS);
  /** Resolutions this instance heard (or won) lately, with when. */
  private readonly heard = new RecentIds(2 * FRESH_MS);

  constructor(options: RedisStoreOptions) {
    this.ownsClient = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? openClient(options.redis) : options.redis;
    this.keys = storeKeys(options.prefix ?? 'hitl:');
    this.now = options.now ?? Date.now;
    const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.ctx = {
      redis: this.redis,
      keys: this.keys,
      now: this.now,
      retentionMs,
      atOnce: !(this.redis instanceof Cluster),
    };
    defineScripts(this.redis);
    this.feed = new ResolutionFeed(this.redis, this.keys.resolvedChannel, {
      resolved: (inquiry) => {
        this.heard.add(inquiry.inquiryId);
        this.waiters.wake(inquiry);
        this.listeners.emit(inquiry);
      },
      resubscribed: () => this.recheckWaiters(),
    });
    // Subscribe now so onResolved hears resolutions without a waiter; a failure is retried by the
    // first waitForResolution and on every reconnect.
    this.feed.ready().catch(() => {});
  }

  async create(input: NewInquiry, options: CreateOptions = {}): Promise<CreateResult> {
    const sentAt = performance.now();
    const result = await createInquiry(this.ctx, input, options);
    if (result.kind === 'ok' && result.created) this.created.add(result.inquiry.inquiryId, sentAt);
    return result;
  }

  get(inquiryId: string): Promise<Inquiry | null> {
    return readInquiry(this.ctx, inquiryId);
  }

  async getByKey(userId: string, idempotencyKey: string): Promise<Inquiry | null> {
    const inquiryId = await this.redis.get(this.keys.idempotency(userId, idempotencyKey));
    return inquiryId === null ? null : this.get(inquiryId);
  }

  list(options: ListOptions): Promise<Page<Inquiry>> {
    return listPage(this.ctx, options);
  }

  countPending(userId: string): Promise<number> {
    return countPending(this.ctx, userId);
  }

  async rememberCall(callKey: string, inquiryId: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.call(callKey), inquiryId, 'PX', Math.max(1, Math.round(ttlMs)));
  }

  recallCall(callKey: string): Promise<string | null> {
    return this.redis.get(this.keys.call(callKey));
  }

  countAllPending(): Promise<number> {
    return this.ctx.redis.zcard(this.ctx.keys.pending);
  }

  resolve(inquiryId: string, resolution: Resolution, asker?: AskerHint): Promise<ResolveResult> {
    // This node's waiters wake on the reply; the published message wakes the others (and is a
    // no-op here). Listeners still hear each resolution once, from the subscription.
    return resolveInquiry(this.ctx, inquiryId, resolution, asker, (inquiry) => {
      this.heard.add(inquiry.inquiryId);
      this.waiters.wake(inquiry);
    });
  }

  suggest(inquiryId: string, suggestedAnswer: Inquiry['suggestedAnswer']): Promise<boolean> {
    return suggestAnswer(this.ctx, inquiryId, suggestedAnswer);
  }

  waitForResolution(inquiryId: string, options: WaitOptions = {}): Promise<Inquiry | null> {
    const read = async (id: string) => {
      // Live subscription before the read: a resolution published after the read still arrives.
      await this.feed.ready();
      return this.get(id);
    };
    // Just created here, with the subscription live since before the create went out: every later
    // resolution reaches this instance, so it is pending unless one was heard since (then read).
    const createdAt = this.created.take(inquiryId);
    const liveSince = this.feed.liveSince;
    const first =
      createdAt !== undefined && liveSince !== undefined && liveSince <= createdAt
        ? async (id: string) => (this.heard.since(id, createdAt) ? read(id) : undefined)
        : read;
    return this.inFlight.track(waitForResolution(this.waiters, inquiryId, options, this.now, read, first));
  }

  listDue(now: number, limit: number): Promise<string[]> {
    return listDue(this.ctx, now, limit);
  }

  onResolved(listener: ResolvedListener): () => void {
    return this.listeners.add(listener);
  }

  /** Ready means both connections work: commands answer, and resolutions are being heard. */
  async ping(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer PING (or subscribe) within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([Promise.all([this.redis.ping(), this.feed.ready()]), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Releases every waiter (each returns the state it reads), then closes the connections the store opened. */
  async close(): Promise<void> {
    this.waiters.wakeAll();
    await this.inFlight.settle();
    await this.feed.close();
    if (this.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** After a resubscribe: wake every waiter whose inquiry ended while the subscription was down. */
  private async recheckWaiters(): Promise<void> {
    await Promise.all(
      this.waiters.ids().map(async (id) => {
        const inquiry = await this.get(id).catch(() => null);
        if (inquiry && inquiry.status !== 'pending') this.waiters.wake(inquiry);
      }),
    );
  }
}
