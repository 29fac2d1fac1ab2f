import type { AuditRecord, ChainEntry } from '@hitl/protocol';
import type { AuditChainStore, AuditOutbox } from './audit-chain.js';
import { type ChainHead, chainAfter, EMPTY_HEAD } from './chain-hash.js';

/**
 * The chain in process memory (`HITL_STORE=memory`, tests): gone on restart, like everything else
 * that store keeps. It is also the outbox the memory inquiry store writes in its steps.
 */
export class MemoryAuditChain implements AuditChainStore, AuditOutbox {
  private readonly entries: ChainEntry[] = [];
  private readonly ids = new Set<string>();
  private readonly outbox = new Map<string, AuditRecord>();

  put(records: readonly AuditRecord[]): void {
    for (const record of records)
      if (!this.ids.has(record.id)) this.outbox.set(record.id, structuredClone(record));
  }

  async stage(records: readonly AuditRecord[]): Promise<void> {
    this.put(records);
  }

  async append(records: readonly AuditRecord[]): Promise<ChainEntry[]> {
    const fresh: AuditRecord[] = [];
    for (const record of records) {
      this.outbox.delete(record.id);
      if (this.ids.has(record.id) || fresh.some((r) => r.id === record.id)) continue;
      fresh.push(structuredClone(record));
    }
    const added = chainAfter(this.headNow(), fresh);
    for (const entry of added) {
      this.entries.push(entry);
      this.ids.add(entry.record.id);
    }
    return added.map((entry) => structuredClone(entry));
  }

  async drainOutbox(): Promise<number> {
    return (await this.append([...this.outbox.values()])).length;
  }

  async head(): Promise<ChainHead> {
    return this.headNow();
  }

  async read(after: number, limit: number): Promise<ChainEntry[]> {
    return this.entries.slice(Math.max(0, after), Math.max(0, after) + limit).map((e) => structuredClone(e));
  }

  async close(): Promise<void> {}

  private headNow(): ChainHead {
    const last = this.entries.at(-1);
    return last ? { seq: last.seq, hash: last.hash } : EMPTY_HEAD;
  }
}
