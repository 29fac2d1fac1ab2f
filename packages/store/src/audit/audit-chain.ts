import type { AuditRecord, ChainEntry } from '@hitl/protocol';
import type { ChainHead } from './chain-hash.js';

/**
 * Where a decision's store step puts its audit record, in the same atomic step (the memory and SQLite
 * stores call it inside theirs; the Redis store writes the record into the decision's own hash and
 * names it in the chain's outbox). A record put here is moved into the chain by
 * {@link AuditChainStore.append}, or after a crash by {@link AuditChainStore.drainOutbox}.
 */
export interface AuditOutbox {
  /** Synchronous, inside the caller's transaction or turn. Records already in the chain are skipped. */
  put(records: readonly AuditRecord[]): void;
}

/**
 * The deployment's one audit chain: entries `{seq, prevHash, hash, record}`, each hash computed by
 * the node over the one before it, appended exactly once per record id. The memory, SQLite and Redis
 * (one server or a Cluster: every key under one hash tag) chains pass `runAuditContract`.
 *
 * @example
 * await chain.append([{ id: 'inquiry:01J…:end', type: 'answer', at: Date.now(), inquiryId: '01J…' }]);
 * const { seq, hash } = await chain.head();
 */
export interface AuditChainStore {
  /**
   * Appends, in order, each record whose id the chain does not hold yet, and takes it out of the
   * outbox; durable before it returns. Concurrent appends (from any number of nodes) make one chain
   * with no gap. Returns the entries this call added.
   */
  append(records: readonly AuditRecord[]): Promise<ChainEntry[]>;
  /**
   * Puts records in the outbox without appending them (durable): for a caller that must record before
   * it acts, then appends after. A crash between leaves them to {@link drainOutbox}.
   */
  stage(records: readonly AuditRecord[]): Promise<void>;
  /**
   * Moves what the outbox holds into the chain: the records of decisions that were made but not yet
   * appended (a crash, a failed append). Entries younger than `graceMs` are left to the appender that
   * is moving them. Returns how many were appended.
   */
  drainOutbox(graceMs?: number): Promise<number>;
  head(): Promise<ChainHead>;
  /** Entries with `seq` above `after`, oldest first, at most `limit`. */
  read(after: number, limit: number): Promise<ChainEntry[]>;
  close(): Promise<void>;
}

/** The record ids of a decision's store step: written with the step exactly when the step wins. */
export interface StepAudit {
  /** Written when the step changes the inquiry (the resolve or escalation wins; the vote counts). */
  record: AuditRecord;
  /** A vote only: written when the vote also ends the inquiry. */
  end?: AuditRecord;
}
