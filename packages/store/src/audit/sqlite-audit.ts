import type { AuditRecord, ChainEntry } from '@hitl/protocol';
import { ImmediateTransactions } from '../sqlite/immediate.js';
import { migrate } from '../sqlite/migrate.js';
import type { SqliteStatement, StateDatabase } from '../sqlite/state-database.js';
import type { AuditChainStore, AuditOutbox } from './audit-chain.js';
import { type ChainHead, chainAfter, EMPTY_HEAD } from './chain-hash.js';

/**
 * The chain's rows and its outbox. A record's JSON is kept as the node wrote it; the hash covers its
 * canonical form (JCS), so an edit to any row shows when the chain is verified.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_chain (
  seq       INTEGER PRIMARY KEY,
  prev_hash TEXT NOT NULL,
  hash      TEXT NOT NULL,
  record_id TEXT NOT NULL UNIQUE,
  record    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_outbox (
  record_id TEXT PRIMARY KEY,
  record    TEXT NOT NULL
);
`;

interface ChainRow {
  seq: number;
  prev_hash: string;
  hash: string;
  record: string;
}

/**
 * The embedded node's chain, in its state file (tables `audit_chain`, `audit_outbox`). The inquiry
 * store puts a decision's record in the outbox inside the decision's own transaction; `append` moves
 * it into the chain in one transaction (one writer: the file is locked to this process). After a
 * `kill -9`, whatever the outbox kept is appended by `drainOutbox` at the next start.
 */
export class SqliteAuditChain implements AuditChainStore, AuditOutbox {
  private readonly transactions: ImmediateTransactions;
  private readonly putOne: SqliteStatement;
  private readonly dropOne: SqliteStatement;
  private readonly hasId: SqliteStatement;
  private readonly insert: SqliteStatement;
  private readonly last: SqliteStatement;
  private readonly page: SqliteStatement;
  private readonly outboxAll: SqliteStatement;

  constructor(private readonly database: StateDatabase) {
    const { db } = database;
    migrate(db, 'audit', [{ version: 1, up: SCHEMA }]);
    this.transactions = new ImmediateTransactions(db);
    this.putOne = db.prepare('INSERT OR REPLACE INTO audit_outbox (record_id, record) VALUES (?, ?)');
    this.dropOne = db.prepare('DELETE FROM audit_outbox WHERE record_id = ?');
    this.hasId = db.prepare('SELECT 1 AS found FROM audit_chain WHERE record_id = ?');
    this.insert = db.prepare(
      'INSERT INTO audit_chain (seq, prev_hash, hash, record_id, record) VALUES (?, ?, ?, ?, ?)',
    );
    this.last = db.prepare('SELECT seq, hash FROM audit_chain ORDER BY seq DESC LIMIT 1');
    this.page = db.prepare(
      'SELECT seq, prev_hash, hash, record FROM audit_chain WHERE seq > ? ORDER BY seq LIMIT ?',
    );
    this.outboxAll = db.prepare('SELECT record FROM audit_outbox ORDER BY rowid').pluck();
  }

  put(records: readonly AuditRecord[]): void {
    for (const record of records) {
      if (!this.hasId.get(record.id)) this.putOne.run(record.id, JSON.stringify(record));
    }
  }

  async stage(records: readonly AuditRecord[]): Promise<void> {
    this.transactions.run(() => this.put(records));
    await this.database.syncWal();
  }

  async append(records: readonly AuditRecord[]): Promise<ChainEntry[]> {
    if (records.length === 0) return [];
    let direct = false;
    const added = this.transactions.run(() => {
      const fresh: AuditRecord[] = [];
      for (const record of records) {
        const staged = this.dropOne.run(record.id).changes > 0;
        if (this.hasId.get(record.id) || fresh.some((r) => r.id === record.id)) continue;
        if (!staged) direct = true;
        fresh.push(record);
      }
      const entries = chainAfter(this.headNow(), fresh);
      for (const e of entries)
        this.insert.run(e.seq, e.prevHash, e.hash, e.record.id, JSON.stringify(e.record));
      return entries;
    });
    // A record from the outbox was on disk before (the decision's own commit was synced): should this
    // commit be lost to a power cut, the outbox still holds it. One appended directly is synced now.
    if (direct) await this.database.syncWal();
    return added;
  }

  async drainOutbox(): Promise<number> {
    const waiting = (this.outboxAll.all() as string[]).map((text) => JSON.parse(text) as AuditRecord);
    return (await this.append(waiting)).length;
  }

  async head(): Promise<ChainHead> {
    return this.headNow();
  }

  async read(after: number, limit: number): Promise<ChainEntry[]> {
    return (this.page.all(after, limit) as ChainRow[]).map((row) => ({
      seq: row.seq,
      prevHash: row.prev_hash,
      hash: row.hash,
      record: JSON.parse(row.record) as AuditRecord,
    }));
  }

  async close(): Promise<void> {}

  private headNow(): ChainHead {
    const row = this.last.get() as { seq: number; hash: string } | undefined;
    return row ? { seq: row.seq, hash: row.hash } : EMPTY_HEAD;
  }
}
