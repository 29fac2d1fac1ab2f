import type { Inquiry, Page, Resolution, Vote } from '@hitl/protocol';
import type { AuditOutbox, StepAudit } from '../audit/audit-chain.js';
import { putStep } from '../audit/step-audit.js';
import { CallRefs } from '../call-refs.js';
import { DEFAULT_RETENTION_MS } from '../defaults.js';
import { FreshCreates } from '../fresh-creates.js';
import { ResolvedListeners } from '../listeners.js';
import { resolvable, withResolution } from '../resolution.js';
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
import { castVote, escalated } from '../votes.js';
import { Waiters, waitForResolution } from '../waiters.js';
import { ImmediateTransactions } from './immediate.js';
import { InquiryRows } from './inquiry-rows.js';
import { migrateInquiryTables } from './inquiry-schema.js';
import { openStateDatabase, type StateDatabase } from './state-database.js';

/** Options of {@link SqliteInquiryStore}: a file to open, or a state database the caller owns. */
export type SqliteStoreOptions = ({ path: string } | { database: StateDatabase }) & {
  /** How long an ended inquiry is kept, in ms (default 7 days); a pending one until its service deadline plus this. */
  retentionMs?: number;
  /** The clock (epoch ms); defaults to `Date.now`. */
  now?: () => number;
  /**
   * Where a decision's audit record goes inside the decision's own transaction: a `SqliteAuditChain`
   * on the same state database.
   */
  outbox?: AuditOutbox;
};

/** Expired rows are deleted at most this often (store clock); reads skip them exactly anyway. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The durable single-node store: inquiries in one SQLite file (WAL). Every write is committed before
 * its promise settles, so a crashed process loses nothing; a resolve is also fsynced, so an answer
 * survives a power loss before anyone is told of it. A restart finds everything again.
 * Waiters and `onResolved` are in-process (one node per file; the file is locked). Passes the same
 * contract suite as the memory and Redis stores.
 *
 * @example
 * const store = new SqliteInquiryStore({ path: '/home/me/.hitl/hitl.db' });
 */
export class SqliteInquiryStore implements InquiryStore {
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly database: StateDatabase;
  private readonly ownsDatabase: boolean;
  private readonly rows: InquiryRows;
  private readonly transactions: ImmediateTransactions;
  private readonly waiters = new Waiters();
  private readonly listeners = new ResolvedListeners();
  /** Call references live only as long as the calls they name, which end with this process. */
  private readonly calls: CallRefs;
  /** Inquiries just created here: the first wait on one needs no read (every end goes through this store). */
  private readonly fresh = new FreshCreates();
  private nextSweepAt = 0;
  private closed = false;
  private readonly outbox: AuditOutbox | undefined;

  constructor(options: SqliteStoreOptions) {
    this.now = options.now ?? Date.now;
    this.outbox = options.outbox;
    this.calls = new CallRefs(this.now);
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.ownsDatabase = !('database' in options);
    this.database = 'database' in options ? options.database : openStateDatabase(options.path);
    try {
      migrateInquiryTables(this.database.db);
      this.rows = new InquiryRows(this.database.db);
      this.transactions = new ImmediateTransactions(this.database.db);
    } catch (error) {
      if (this.ownsDatabase) this.database.close();
      throw error;
    }
  }

  async create(input: NewInquiry, options: CreateOptions = {}): Promise<CreateResult> {
    this.sweep();
    const now = this.now();
    const inquiry: Inquiry = { ...structuredClone(input), status: 'pending' };
    const expiresAt = Math.max(now, inquiry.deadlines.serviceAt) + this.retentionMs;
    const result = this.transactions.run((): CreateResult => {
      const cap = options.maxPendingPerUser ?? 0;
      if (cap > 0) {
        const pending = this.rows.countPending(input.userId, now);
        if (pending >= cap) {
          const existing = this.existing(input, now);
          return existing ? { kind: 'ok', inquiry: existing, created: false } : { kind: 'limit', pending };
        }
      }
      // The insert first: a new id and key (nearly every create) take one statement. When either is
      // taken, it is by a live row (an idempotent retry: that row is the answer) or by an expired one
      // the sweep has not deleted yet (deleted here, then the insert goes in).
      if (this.rows.insert(inquiry, expiresAt)) return { kind: 'ok', inquiry: { ...inquiry }, created: true };
      this.rows.dropExpiredConflicts(inquiry, now);
      const existing = this.existing(input, now);
      if (existing) return { kind: 'ok', inquiry: existing, created: false };
      if (!this.rows.insert(inquiry, expiresAt))
        throw new Error(`${input.inquiryId}: insert conflicts with no row`);
      return { kind: 'ok', inquiry: { ...inquiry }, created: true };
    });
    if (result.kind === 'ok' && result.created) {
      this.fresh.add(inquiry, 0);
      if (options.call) this.calls.remember(options.call.key, inquiry.inquiryId, options.call.ttlMs);
    }
    return result;
  }

  /** The live inquiry a create collides with: the same id, or the same user's idempotency key. */
  private existing(input: NewInquiry, now: number): Inquiry | undefined {
    return (
      this.rows.get(input.inquiryId, now) ??
      (input.idempotencyKey === undefined
        ? undefined
        : this.rows.getByKey(input.userId, input.idempotencyKey, now))
    );
  }

  async get(inquiryId: string): Promise<Inquiry | null> {
    return this.rows.get(inquiryId, this.now()) ?? null;
  }

  async getByKey(userId: string, idempotencyKey: string): Promise<Inquiry | null> {
    return this.rows.getByKey(userId, idempotencyKey, this.now()) ?? null;
  }

  async list(options: ListOptions): Promise<Page<Inquiry>> {
    this.sweep();
    const rows = this.rows.list(options, this.now(), options.limit + 1);
    const items = rows.slice(0, options.limit);
    const last = items.at(-1);
    return { items, nextCursor: rows.length > options.limit && last ? last.inquiryId : null };
  }

  async countPending(userId: string): Promise<number> {
    return this.rows.countPending(userId, this.now());
  }

  async countAllPending(): Promise<number> {
    return this.rows.countPending(undefined, this.now());
  }

  async resolve(
    inquiryId: string,
    resolution: Resolution,
    _asker?: unknown,
    addressedTo?: string,
    audit?: StepAudit,
  ): Promise<ResolveResult> {
    const now = this.now();
    // The read and the end in one transaction: nothing can end the row between them (one writer).
    const result = this.transactions.run((): ResolveResult => {
      const current = resolvable(this.rows.get(inquiryId, now), addressedTo);
      if (!current) return { kind: 'not_found' };
      if (current.status !== 'pending') return { kind: 'lost', inquiry: current };
      const resolved = withResolution(current, structuredClone(resolution));
      if (!this.rows.end(resolved, now + this.retentionMs, now)) {
        throw new Error(`${inquiryId}: a pending row read in this transaction did not end`);
      }
      putStep(this.outbox, audit, true);
      return { kind: 'won', inquiry: resolved };
    });
    if (result.kind === 'won') {
      // On disk before anyone hears of it: an acknowledged answer survives even a power loss.
      await this.database.syncWal();
      this.announce(result.inquiry);
    }
    return result;
  }

  async vote(inquiryId: string, vote: Vote, decides: Resolution, audit?: StepAudit): Promise<VoteResult> {
    const now = this.now();
    // Read, decide and write in one immediate transaction (the file has one writer at a time),
    // then on disk before it is acknowledged: a vote, like an answer, survives a power loss.
    const result = this.transactions.run((): VoteResult => {
      const current = this.rows.get(inquiryId, now);
      if (!current) return { kind: 'not_found' };
      const cast = castVote(current, structuredClone(vote), structuredClone(decides));
      if (cast.kind === 'counted') this.rows.rewrite(cast.inquiry, now);
      if (cast.kind === 'won') {
        this.rows.end(cast.inquiry, now + this.retentionMs, now);
      }
      if (cast.kind === 'counted' || cast.kind === 'won') putStep(this.outbox, audit, cast.kind === 'won');
      return cast;
    });
    if (result.kind === 'counted' || result.kind === 'won') await this.database.syncWal();
    if (result.kind === 'won') this.announce(result.inquiry);
    return result;
  }

  async escalate(inquiryId: string, at: number, audit?: StepAudit): Promise<Inquiry | null> {
    const now = this.now();
    const next = this.transactions.run((): Inquiry | null => {
      const current = this.rows.get(inquiryId, now);
      const next = current && escalated(current, at);
      if (!next || !this.rows.rewrite(next, now)) return null;
      this.rows.addMembers(next);
      this.rows.forgetEscalation(inquiryId);
      putStep(this.outbox, audit, false);
      return next;
    });
    // Its audit record is on disk before anyone hears of the escalation.
    if (next && audit) await this.database.syncWal();
    return next;
  }

  async listDueEscalations(now: number, limit: number): Promise<string[]> {
    return this.rows.listDueEscalations(now, this.now(), limit);
  }

  /** Each hears of the end through its own copy (shallow, as the memory store's: nobody changes one). */
  private announce(resolved: Inquiry): void {
    this.fresh.ended(resolved);
    this.waiters.wake({ ...resolved });
    this.listeners.emit({ ...resolved });
  }

  async suggest(inquiryId: string, suggestedAnswer: Inquiry['suggestedAnswer']): Promise<boolean> {
    const now = this.now();
    const current = this.rows.get(inquiryId, now);
    if (current?.status !== 'pending') return false;
    const { suggestedAnswer: _previous, ...rest } = current;
    const next = suggestedAnswer === undefined ? rest : { ...rest, suggestedAnswer };
    return this.rows.rewrite(next, now);
  }

  waitForResolution(inquiryId: string, options: WaitOptions = {}): Promise<Inquiry | null> {
    return waitForResolution(this.waiters, inquiryId, options, this.now, (id) => this.readForWait(id));
  }

  /**
   * A waiter's read. The first wait on an inquiry this store has just created (the held call that
   * asked it) reads nothing: the file has one writer, this store, and an end it made since the create
   * is kept for that wait (the waiter is parked before this read, so a later end wakes it).
   */
  private readForWait(inquiryId: string): Promise<Inquiry | null> {
    const fresh = this.fresh.take(inquiryId);
    if (fresh) return Promise.resolve(fresh.ended ?? fresh.inquiry);
    return this.get(inquiryId);
  }

  async listDue(now: number, limit: number): Promise<string[]> {
    return this.rows.listDue(now, this.now(), limit);
  }

  onResolved(listener: ResolvedListener): () => void {
    return this.listeners.add(listener);
  }

  async rememberCall(callKey: string, inquiryId: string, ttlMs: number): Promise<void> {
    this.calls.remember(callKey, inquiryId, ttlMs);
  }

  async recallCall(callKey: string): Promise<string | null> {
    return this.calls.recall(callKey);
  }

  async ping(_timeoutMs: number): Promise<void> {
    if (this.closed) throw new Error('store closed');
    this.database.db.prepare('SELECT 1').get();
  }

  /** Releases every waiter (each returns the inquiry's current state), then closes the file it opened. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.waiters.wakeAll();
    await this.waiters.settled();
    this.closed = true;
    if (this.ownsDatabase) this.database.close();
  }

  /** Deletes expired rows at most once per {@link SWEEP_EVERY_MS} and returns their pages to the disk. */
  private sweep(): void {
    const now = this.now();
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + Math.min(SWEEP_EVERY_MS, this.retentionMs);
    if (this.rows.sweep(now) > 0) this.database.db.exec('PRAGMA incremental_vacuum');
  }
}
