import type { AuditRecord, ChainEntry } from '@hitl/protocol';
import type { Cluster, Redis, Result } from 'ioredis';
import { readReply } from '../lua-kit/script-reply.js';
import { openClient } from '../redis/connection.js';
import { storeKeys } from '../redis/keys.js';
import { defineScripts, type RawReply } from '../redis/scripts.js';
import type { AuditChainStore } from './audit-chain.js';
import { type ChainHead, chainAfter, EMPTY_HEAD } from './chain-hash.js';
import { type AuditKeys, auditField, auditKeys } from './redis-audit-keys.js';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** src/lua/audit-append-4.lua: head, entries, ids, outbox; expected seq and hash; (id, hash, json)... */
    hitlAuditAppend(...args: (string | number)[]): Result<RawReply, Context>;
  }
}

enum AuditCode {
  Done = 1,
  HeadMoved = -5,
  InChain = -6,
}

/** Entries one script call appends at most (a bigger batch takes several). */
const CHUNK = 200;
/** Compare-and-set attempts before an append gives up (each lost one means another node appended). */
const MAX_ATTEMPTS = 1000;
/** How long an outbox entry is left to the appender that named it before a drain takes it over. */
const DEFAULT_GRACE_MS = 10_000;

export interface RedisAuditOptions {
  /** A client the caller owns (never closed here), or a URL for one this chain opens and closes. */
  redis: Redis | Cluster | string;
  /** The store's key prefix (default `hitl:`): the outbox names inquiries by the store's keys. */
  prefix?: string;
  now?: () => number;
}

interface Waiting {
  records: readonly AuditRecord[];
  resolve(entries: ChainEntry[]): void;
  reject(error: unknown): void;
}

/**
 * The chain shared by every node: `{audit}:entries` and its head, appended by compare-and-set
 * (audit-append-4.lua) with hashes the node computed; a lost race re-hashes on the head the script
 * returns. Appends that arrive while one is in flight go together in the next script call, so a
 * busy node spends one round trip for many records.
 */
export class RedisAuditChain implements AuditChainStore {
  private readonly redis: Redis | Cluster;
  private readonly ownsClient: boolean;
  private readonly keys: AuditKeys;
  private readonly inquiryKey: (inquiryId: string) => string;
  private readonly now: () => number;
  private head_: ChainHead | undefined;
  private queue: Waiting[] = [];
  private flying = false;

  constructor(options: RedisAuditOptions) {
    this.ownsClient = typeof options.redis === 'string';
    this.redis = typeof options.redis === 'string' ? openClient(options.redis) : options.redis;
    const prefix = options.prefix ?? 'hitl:';
    this.keys = auditKeys(prefix);
    this.inquiryKey = storeKeys(prefix).inquiry;
    this.now = options.now ?? Date.now;
    defineScripts(this.redis);
  }

  append(records: readonly AuditRecord[]): Promise<ChainEntry[]> {
    if (records.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ records, resolve, reject });
      this.kick();
    });
  }

  async stage(records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    const at = this.now();
    await this.redis.hset(
      this.keys.outbox,
      ...records.flatMap((record) => [record.id, JSON.stringify({ record, at })]),
    );
  }

  async drainOutbox(graceMs = DEFAULT_GRACE_MS): Promise<number> {
    const before = this.now() - graceMs;
    const found: { record: AuditRecord; at: number }[] = [];
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(this.keys.outbox, cursor, 'COUNT', 200);
      cursor = next;
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const record = await this.fromOutbox(flat[i] as string, flat[i + 1] as string, before);
        if (record) found.push(record);
      }
    } while (cursor !== '0');
    // In the order they were named (the hash keeps none).
    found.sort((a, b) => a.at - b.at);
    return (await this.append(found.map((f) => f.record))).length;
  }

  /**
   * An outbox entry's record when it is due to be appended; undefined while it is young or its
   * decision's step may still write it. Drops an entry whose step can no longer write its record.
   */
  private async fromOutbox(
    id: string,
    value: string,
    before: number,
  ): Promise<{ record: AuditRecord; at: number } | undefined> {
    const entry = JSON.parse(value) as { ref?: string; record?: AuditRecord; at: number };
    if (entry.at > before) return undefined;
    if (entry.record) return { record: entry.record, at: entry.at };
    if (entry.ref === undefined) return undefined;
    const [json, status] = await this.redis.hmget(this.inquiryKey(entry.ref), auditField(id), 'status');
    if (json) return { record: JSON.parse(json) as AuditRecord, at: entry.at };
    // Gone, or ended without this record: the step lost (an ended inquiry never writes one again).
    if (status === null || status !== 'pending') await this.redis.hdel(this.keys.outbox, id);
    return undefined;
  }

  async head(): Promise<ChainHead> {
    return this.readHead();
  }

  async read(after: number, limit: number): Promise<ChainEntry[]> {
    const from = Math.max(0, after);
    const items = await this.redis.lrange(this.keys.entries, from, from + limit - 1);
    return items.map((json) => JSON.parse(json) as ChainEntry);
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private kick(): void {
    if (this.flying || this.queue.length === 0) return;
    this.flying = true;
    const batch = this.queue;
    this.queue = [];
    void this.appendAll(batch.flatMap((waiting) => waiting.records))
      .then(
        (added) => {
          // Each entry goes back to the first caller that gave its record.
          const byId = new Map(added.map((entry) => [entry.record.id, entry]));
          for (const waiting of batch) {
            const mine: ChainEntry[] = [];
            for (const record of waiting.records) {
              const entry = byId.get(record.id);
              if (entry) mine.push(entry);
              byId.delete(record.id);
            }
            waiting.resolve(mine);
          }
        },
        (error: unknown) => {
          for (const waiting of batch) waiting.reject(error);
        },
      )
      .finally(() => {
        this.flying = false;
        this.kick();
      });
  }

  /** Appends the records (first of each id) by compare-and-set, re-hashing after each lost race. */
  private async appendAll(records: readonly AuditRecord[]): Promise<ChainEntry[]> {
    const seen = new Set<string>();
    let pending = records.filter((record) => !seen.has(record.id) && seen.add(record.id));
    const added: ChainEntry[] = [];
    let head = this.head_ ?? (await this.readHead());
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > MAX_ATTEMPTS) throw new Error(`audit append lost ${MAX_ATTEMPTS} races in a row`);
      const entries = chainAfter(head, pending.slice(0, CHUNK));
      const reply = readReply(
        'audit-append-4',
        await this.redis.hitlAuditAppend(
          this.keys.head,
          this.keys.entries,
          this.keys.ids,
          this.keys.outbox,
          head.seq,
          head.hash,
          ...entries.flatMap((entry) => [entry.record.id, entry.hash, JSON.stringify(entry)]),
        ),
        [AuditCode.Done, AuditCode.HeadMoved, AuditCode.InChain],
        AuditCode,
      );
      const first = reply.fields[0] ?? '';
      const second = reply.fields[1] ?? '';
      if (reply.code === AuditCode.InChain) {
        pending = pending.filter((record) => record.id !== first);
        continue;
      }
      head = { seq: Number(first), hash: second };
      if (reply.code === AuditCode.Done) {
        added.push(...entries);
        pending = pending.slice(entries.length);
      }
    }
    this.head_ = head;
    return added;
  }

  private async readHead(): Promise<ChainHead> {
    const head = await this.redis.get(this.keys.head);
    if (!head) return EMPTY_HEAD;
    const [seq = '0', hash = ''] = head.split(' ');
    return { seq: Number(seq), hash };
  }
}
