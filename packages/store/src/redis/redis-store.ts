import type { Inquiry, Page, Resolution, Vote } from '@hitl/protocol';
import { Cluster, type Redis } from 'ioredis';
import type { StepAudit } from '../audit/audit-chain.js';
import { auditKeys } from '../audit/redis-audit-keys.js';
import { DEFAULT_RETENTION_MS } from '../defaults.js';
import { FreshCreates } from '../fresh-creates.js';
import { ResolvedListeners } from '../listeners.js';
import { readReply } from '../lua-kit/script-reply.js';
import type {
  CreateOptions,
  CreateResult,
  InquiryStore,
  ListOptions,
  NewInquiry,
  ResolvedListener,
  ResolveResult,
  VoteResult,
  WaitOptions,
} from '../store.js';
import { Waiters, waitForResolution } from '../waiters.js';
import { decodeFields, decodeMessage, HASH_FIELDS } from './codec.js';
import { ScriptCode } from './codes.js';
import { openClient } from './connection.js';
import { MAX_WAITER_TAGS, type StoreKeys, storeKeys } from './keys.js';
import {
  countAllPending,
  countPending,
  listDue,
  listDueEscalations,
  listPage,
  readInquiry,
} from './listing.js';
import { NodeFeed } from './node-feed.js';
import { escalateInquiry, voteOn } from './progress.js';
import { defineScripts } from './scripts.js';
import {
  type AskerHint,
  createInquiry,
  rememberCall,
  resolveInquiry,
  suggestAnswer,
  type WriteContext,
} from './writes.js';

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
 * answer wins atomically. Each store subscribes one sharded channel of its own for its life
 * (node-feed.ts); an inquiry lists the stores waiting on it, and the script that ends it publishes
 * the end to each of them but the resolver (so a node hears only what it waits on, and a wait costs
 * no subscription); waiters re-read state after any reconnect because pub/sub is at-most-once.
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
  private readonly feed: NodeFeed;
  private readonly waiters = new Waiters();
  private readonly listeners = new ResolvedListeners();
  private readonly fresh = new FreshCreates();
  /**
   * A wait's read, made once: an arrow per wait is a closure and a context that every held call
   * keeps (measured: about 0.1 KB per held call in heap snapshots, 1,000 held;
   * bench/results/2026-12-02-i36-v8-ab.txt).
   */
  private readonly readForWait = (inquiryId: string) => this.readWatched(inquiryId);

  constructor(options: RedisStoreOptions) {
    this.ownsClient = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? openClient(options.redis) : options.redis;
    this.keys = storeKeys(options.prefix ?? 'hitl:');
    const auditOutbox = auditKeys(options.prefix ?? 'hitl:').outbox;
    this.now = options.now ?? Date.now;
    const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    defineScripts(this.redis);
    this.feed = new NodeFeed(this.redis, this.keys.nodeChannel, {
      heard: (inquiryId, message) => this.heard(inquiryId, message),
      resubscribed: () => this.recheckWaiters(),
    });
    this.ctx = {
      redis: this.redis,
      keys: this.keys,
      now: this.now,
      retentionMs,
      atOnce: !(this.redis instanceof Cluster),
      tag: this.feed.tag,
      auditOutbox,
    };
  }

  async create(input: NewInquiry, options: CreateOptions = {}): Promise<CreateResult> {
    const mark = this.feed.liveMark();
    const result = await createInquiry(this.ctx, input, options);
    if (mark !== undefined && result.kind === 'ok' && result.created) this.fresh.add(result.inquiry, mark);
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

  rememberCall(callKey: string, inquiryId: string, ttlMs: number): Promise<void> {
    return rememberCall(this.ctx, callKey, inquiryId, ttlMs);
  }

  recallCall(callKey: string): Promise<string | null> {
    return this.redis.get(this.keys.call(callKey));
  }

  countAllPending(): Promise<number> {
    return countAllPending(this.ctx);
  }

  resolve(
    inquiryId: string,
    resolution: Resolution,
    asker?: AskerHint,
    addressedTo?: string,
    audit?: StepAudit,
  ): Promise<ResolveResult> {
    // This node's waiters wake on the reply; the published message wakes the other nodes' (and is
    // skipped here, if this node watches it too). Listeners hear each resolution once.
    return resolveInquiry(
      this.ctx,
      inquiryId,
      resolution,
      asker,
      (inquiry) => this.ended(inquiry),
      addressedTo,
      audit,
    );
  }

  vote(inquiryId: string, vote: Vote, decides: Resolution, audit?: StepAudit): Promise<VoteResult> {
    return voteOn(this.ctx, inquiryId, vote, decides, (inquiry) => this.ended(inquiry), audit);
  }

  escalate(inquiryId: string, at: number, audit?: StepAudit): Promise<Inquiry | null> {
    return escalateInquiry(this.ctx, inquiryId, at, audit);
  }

  listDueEscalations(now: number, limit: number): Promise<string[]> {
    return listDueEscalations(this.ctx, now, limit);
  }

  suggest(inquiryId: string, suggestedAnswer: Inquiry['suggestedAnswer']): Promise<boolean> {
    return suggestAnswer(this.ctx, inquiryId, suggestedAnswer);
  }

  waitForResolution(inquiryId: string, options: WaitOptions = {}): Promise<Inquiry | null> {
    return waitForResolution(this.waiters, inquiryId, options, this.now, this.readForWait);
  }

  /**
   * A waiter's read: the inquiry, with this node listed among its waiters while it is pending (the
   * node that created it already is: a plain read; any other node lists itself with watch-1, in the
   * same step as its read). The node's channel is live before the read, so an end published after
   * it still arrives. However a wait learns of the end (message, reply, or this read), listeners
   * hear it once; a pending read is what the waiters know until a message says how it ended.
   */
  private async readWatched(inquiryId: string): Promise<Inquiry | null> {
    // The first wait on an inquiry this store has just created: no read, if the node's channel stayed
    // live since before the create (then every end since reached this store and was kept).
    const fresh = this.fresh.take(inquiryId);
    if (fresh && this.feed.stayedLive(fresh.mark)) {
      const ended =
        fresh.ended ?? (fresh.heard === undefined ? null : decodeMessage(fresh.heard, fresh.inquiry));
      if (ended) {
        this.listeners.emitOnce(ended);
        return ended;
      }
      if (fresh.heard === undefined) {
        this.waiters.knowPending(fresh.inquiry);
        return fresh.inquiry;
      }
    }
    await this.feed.live();
    const key = this.keys.inquiry(inquiryId);
    const fields = await this.redis.hmget(key, ...HASH_FIELDS, 'waiters');
    let inquiry = decodeFields(fields);
    if (inquiry?.status === 'pending' && !listsTag(fields[HASH_FIELDS.length] ?? null, this.feed.tag)) {
      const reply = readReply(
        'watch-1',
        await this.redis.hitlWatch(key, this.feed.tag, MAX_WAITER_TAGS),
        [ScriptCode.Done, ScriptCode.NotFound],
        ScriptCode,
      );
      inquiry = reply.code === ScriptCode.Done ? decodeFields(reply.fields) : null;
    }
    if (inquiry?.status === 'pending') this.waiters.knowPending(inquiry);
    else if (inquiry) this.listeners.emitOnce(inquiry);
    return inquiry;
  }

  /** This store ended an inquiry (its reply said so): its waiters wake now, listeners hear it. */
  private ended(inquiry: Inquiry): void {
    this.fresh.ended(inquiry);
    this.waiters.wake(inquiry);
    this.listeners.emitOnce(inquiry);
  }

  /** A resolution message on this node's channel. */
  private heard(inquiryId: string, message: string): void {
    // Not waited on (yet): kept if just created here; else a wait that has since ended listed this
    // node (the list is not trimmed when a waiter leaves). Or this store's own win, already told.
    if (!this.waiters.has(inquiryId)) {
      this.fresh.heard(inquiryId, message);
      return;
    }
    if (this.listeners.told(inquiryId)) return;
    const pending = this.waiters.pendingOf(inquiryId);
    const inquiry = pending && decodeMessage(message, pending);
    if (inquiry) {
      this.ended(inquiry);
      return;
    }
    // Heard before the waiter's read returned: read the resolved state instead.
    void this.get(inquiryId).then(
      (read) => read && read.status !== 'pending' && this.ended(read),
      () => {},
    );
  }

  listDue(now: number, limit: number): Promise<string[]> {
    return listDue(this.ctx, now, limit);
  }

  /** Resolutions this store made, and those of inquiries it was waiting on (not every node's). */
  onResolved(listener: ResolvedListener): () => void {
    return this.listeners.add(listener);
  }

  /** Ready means both connections work: commands answer, and so does the subscriber. */
  async ping(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Redis did not answer PING (or subscribe) within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([Promise.all([this.redis.ping(), this.feed.ping()]), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Releases every waiter (each returns the state it reads), then closes the connections the store opened. */
  async close(): Promise<void> {
    this.waiters.wakeAll();
    await this.waiters.settled();
    await this.feed.close();
    if (this.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** After a resubscribe: wake every waiter whose inquiry ended while the subscription was down. */
  private async recheckWaiters(): Promise<void> {
    await Promise.all(
      this.waiters.ids().map(async (id) => {
        const inquiry = await this.get(id).catch(() => null);
        if (inquiry && inquiry.status !== 'pending') this.ended(inquiry);
      }),
    );
  }
}

/** Whether a `waiters` field (comma-separated tags) lists `tag`. */
function listsTag(waiters: string | null, tag: string): boolean {
  return waiters !== null && `,${waiters},`.includes(`,${tag},`);
}
