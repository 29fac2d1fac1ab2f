import { type Cluster, Redis } from 'ioredis';
import { readReply } from '../lua-kit/script-reply.js';
import { grantRemoveAt } from './grant-rules.js';
import { DEFAULT_PROXY_PREFIX, type ProxyKeys, proxyKeys } from './keys.js';
import { OperationWaiters } from './op-waiters.js';
import type {
  BeginResult,
  ConsumeOutcome,
  DecideOutcome,
  GrantVerdict,
  NewGrant,
  Operation,
  OperationClaim,
  OperationPatch,
  OperationState,
  ProxyStore,
  StoredCall,
} from './proxy-store.js';
import { defineProxyScripts, ScriptCode } from './scripts.js';

export interface RedisProxyStoreOptions {
  /** A connected client (shared; not closed by this store) or a URL (the store owns the connection). */
  redis: Redis | Cluster | string;
  /** Key prefix; default `hitl:proxy:`. Tests use a unique one each. */
  prefix?: string;
  /** How often a waiter re-reads without a wake-up (lapsed leases, lost pub/sub messages). */
  waitPollMs?: number;
}

/** Distributed mode: grants and operations in Redis, the single source of truth for every proxy node. */
export class RedisProxyStore implements ProxyStore {
  private readonly redis: Redis | Cluster;
  private readonly owned: boolean;
  private readonly keys: ProxyKeys;
  private readonly waiters: OperationWaiters;
  private subscriber?: Promise<Redis | Cluster>;
  private readonly cancelListeners = new Set<(callKey: string) => void>();

  constructor(options: RedisProxyStoreOptions) {
    this.owned = typeof options.redis === 'string';
    this.redis =
      typeof options.redis === 'string'
        ? new Redis(options.redis, { maxRetriesPerRequest: 2 })
        : options.redis;
    this.keys = proxyKeys(options.prefix ?? DEFAULT_PROXY_PREFIX);
    this.waiters = new OperationWaiters(options.waitPollMs);
    defineProxyScripts(this.redis);
  }

  async createGrant(grant: NewGrant): Promise<void> {
    const key = this.keys.grant(grant.grantId);
    const ttl = Math.max(1, grantRemoveAt(grant.expiresAt) - Date.now());
    await this.redis
      .multi()
      .hset(key, {
        userId: grant.userId,
        digest: grant.digest,
        state: 'pending',
        expiresAt: grant.expiresAt,
      })
      .pexpire(key, ttl)
      .exec();
  }

  async decideGrant(
    grantId: string,
    decision: GrantVerdict,
    now: number,
    digest?: string,
  ): Promise<DecideOutcome> {
    const rebind = decision === 'approved' && digest ? digest : '';
    const { code } = readReply(
      'grant-decide-1',
      await this.redis.hitlProxyGrantDecide(this.keys.grant(grantId), decision, now, rebind),
      [ScriptCode.Done, ScriptCode.Expired, ScriptCode.WrongState, ScriptCode.NotFound],
      ScriptCode,
    );
    if (code === ScriptCode.Done) return decision;
    if (code === ScriptCode.Expired) return 'expired';
    return code === ScriptCode.WrongState ? 'not_pending' : 'not_found';
  }

  async consumeGrant(grantId: string, digest: string, now: number): Promise<ConsumeOutcome> {
    const {
      code,
      fields: [state],
    } = readReply(
      'grant-consume-1',
      await this.redis.hitlProxyGrantConsume(this.keys.grant(grantId), digest, now),
      [ScriptCode.Done, ScriptCode.Mismatch, ScriptCode.Expired, ScriptCode.WrongState, ScriptCode.NotFound],
      ScriptCode,
    );
    switch (code) {
      case ScriptCode.Done:
        return 'ok';
      case ScriptCode.Mismatch:
        return 'mismatch';
      case ScriptCode.Expired:
        return 'expired';
      case ScriptCode.WrongState:
        return state === 'used' || state === 'expired' ? state : 'not_approved';
      case ScriptCode.NotFound:
        return 'not_found';
    }
  }

  async beginOperation(op: OperationClaim, leaseMs: number, now: number): Promise<BeginResult> {
    const reply = readReply(
      'op-begin-1',
      await this.redis.hitlProxyOpBegin(
        this.keys.operation(op.userId, op.key),
        op.digest,
        op.state,
        op.owner,
        leaseMs,
        now,
        op.driveUntil ?? now + leaseMs,
        op.call ? JSON.stringify(op.call) : '',
      ),
      [ScriptCode.Done, ScriptCode.Existed],
      ScriptCode,
    );
    if (reply.code === ScriptCode.Done) return { started: true };
    return { started: false, existing: toOperation(op.userId, op.key, reply.fields) };
  }

  async updateOperation(
    userId: string,
    key: string,
    owner: string,
    patch: OperationPatch,
    now: number,
  ): Promise<boolean> {
    const { code } = readReply(
      'op-update-1',
      await this.redis.hitlProxyOpUpdate(
        this.keys.operation(userId, key),
        owner,
        patch.state,
        now,
        patch.inquiryId ?? '',
        patch.grantId ?? '',
        patch.driveUntil === undefined ? '' : String(patch.driveUntil),
      ),
      [ScriptCode.Done, ScriptCode.NotFound, ScriptCode.NotOwner],
      ScriptCode,
    );
    return code === ScriptCode.Done;
  }

  async finishOperation(
    userId: string,
    key: string,
    owner: string,
    result: unknown,
    retentionMs: number,
    now: number,
  ): Promise<boolean> {
    const { code } = readReply(
      'op-finish-1',
      await this.redis.hitlProxyOpFinish(
        this.keys.operation(userId, key),
        owner,
        JSON.stringify(result ?? null),
        retentionMs,
        now,
        this.keys.doneChannel,
        OperationWaiters.id(userId, key),
      ),
      [ScriptCode.Done, ScriptCode.NotFound, ScriptCode.NotOwner],
      ScriptCode,
    );
    return code === ScriptCode.Done;
  }

  async getOperation(userId: string, key: string): Promise<Operation | null> {
    const fields = await this.redis.hmget(
      this.keys.operation(userId, key),
      'digest',
      'state',
      'owner',
      'grantId',
      'inquiryId',
      'result',
      'updatedAt',
      'driveUntil',
      'call',
    );
    return fields[0] === null ? null : toOperation(userId, key, fields);
  }

  async adoptOperation(
    userId: string,
    key: string,
    owner: string,
    driveUntil: number,
    now: number,
  ): Promise<Operation | null> {
    const { code } = readReply(
      'op-adopt-1',
      await this.redis.hitlProxyOpAdopt(this.keys.operation(userId, key), owner, driveUntil, now),
      [ScriptCode.Done, ScriptCode.NotFound, ScriptCode.WrongState],
      ScriptCode,
    );
    return code === ScriptCode.Done ? this.getOperation(userId, key) : null;
  }

  async waitForOperation(
    userId: string,
    key: string,
    signal: AbortSignal,
    settled?: (op: Operation) => boolean,
  ): Promise<Operation | null> {
    // Subscribed before the first read, so a finish published in between still wakes us.
    await this.subscribe();
    return this.waiters.waitFor(this, userId, key, signal, settled);
  }

  async publishCancel(callKey: string): Promise<void> {
    await this.redis.publish(this.keys.cancelChannel, callKey);
  }

  async onCancel(listener: (callKey: string) => void): Promise<void> {
    this.cancelListeners.add(listener);
    await this.subscribe();
  }

  async close(): Promise<void> {
    const subscriber = await this.subscriber?.catch(() => undefined);
    subscriber?.disconnect();
    if (this.owned) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** One subscription per store (finished operations and cancels), opened on first need. */
  private subscribe(): Promise<Redis | Cluster> {
    this.subscriber ??= (async () => {
      // A Cluster duplicates to a Cluster; typed as Redis for the one call both share.
      const subscriber = (this.redis as Redis).duplicate();
      subscriber.on('message', (channel: string, message: string) => {
        if (channel === this.keys.doneChannel) this.waiters.notify(message);
        else if (channel === this.keys.cancelChannel)
          for (const listener of this.cancelListeners) listener(message);
      });
      await subscriber.subscribe(this.keys.doneChannel, this.keys.cancelChannel);
      return subscriber;
    })();
    return this.subscriber;
  }
}

/**
 * An operation from its hash fields (digest, state, owner, grantId, inquiryId, result, updatedAt,
 * driveUntil, call).
 */
function toOperation(userId: string, key: string, fields: (string | number | null)[]): Operation {
  const [digest, state, owner, grantId, inquiryId, result, updatedAt, driveUntil, call] = fields.map((f) =>
    f === null || f === undefined ? undefined : String(f),
  );
  return {
    userId,
    key,
    digest: digest ?? '',
    state: (state ?? 'in_progress') as OperationState,
    owner: owner ?? '',
    ...(grantId ? { grantId } : {}),
    ...(inquiryId ? { inquiryId } : {}),
    ...(result !== undefined ? { result: JSON.parse(result) as unknown } : {}),
    updatedAt: Number(updatedAt ?? 0),
    // An operation written before driveUntil existed is driven by its owner until its lease ends.
    driveUntil: driveUntil === undefined ? Number.MAX_SAFE_INTEGER : Number(driveUntil),
    ...(call ? { call: JSON.parse(call) as StoredCall } : {}),
  };
}
