import type { DecisionRecord, ListDecisionsQuery, Page } from '@hitl/protocol';
import { compareIds, type DecisionLog, matches, type NewDecisionRecord, RECORD_ID } from './decision-log.js';

/** The embedded node's audit log: the newest `max` records in memory, lost on restart. */
export class MemoryDecisionLog implements DecisionLog {
  private readonly records: DecisionRecord[] = [];
  private lastMs = 0;
  private seq = 0;

  constructor(private readonly options: { max: number; now?: () => number } = { max: 10_000 }) {}

  async append(record: NewDecisionRecord): Promise<DecisionRecord> {
    const ms = Math.max((this.options.now ?? Date.now)(), this.lastMs);
    this.seq = ms === this.lastMs ? this.seq + 1 : 0;
    this.lastMs = ms;
    const stored = { id: `${ms}-${this.seq}`, ...record };
    this.records.push(stored);
    if (this.records.length > this.options.max)
      this.records.splice(0, this.records.length - this.options.max);
    return stored;
  }

  async list(query: ListDecisionsQuery): Promise<Page<DecisionRecord>> {
    const items: DecisionRecord[] = [];
    for (let i = this.records.length - 1; i >= 0; i--) {
      const record = this.records[i] as DecisionRecord;
      if (query.cursor !== undefined && compareIds(record.id, query.cursor) >= 0) continue;
      if (!matches(record, query)) continue;
      if (items.length === query.limit) return { items, nextCursor: items[items.length - 1]?.id ?? null };
      items.push(record);
    }
    return { items, nextCursor: null };
  }

  async get(id: string): Promise<DecisionRecord | null> {
    if (!RECORD_ID.test(id)) return null;
    return this.records.find((r) => r.id === id) ?? null;
  }

  async since(since: number, max: number): Promise<DecisionRecord[]> {
    const found: DecisionRecord[] = [];
    for (let i = this.records.length - 1; i >= 0 && found.length < max; i--) {
      const record = this.records[i] as DecisionRecord;
      if (record.at >= since) found.push(record);
    }
    return found;
  }
}
