import { openStateDatabase, type StateDatabase } from '../sqlite/state-database.js';
import { consumeRule, decideRule, grantRemoveAt } from './grant-rules.js';
import { OneProcessProxyStore } from './one-process-proxy-store.js';
import { OperationWaiters } from './op-waiters.js';
import type {
  BeginResult,
  ConsumeOutcome,
  DecideOutcome,
  NewGrant,
  Operation,
  OperationClaim,
  OperationPatch,
  ProxyStore,
} from './proxy-store.js';
import { ProxyRows } from './sqlite-proxy-rows.js';

/** Lapsed rows are deleted at most this often; reads skip them exactly anyway. */
const PRUNE_EVERY_MS = 60_000;

/**
 * The proxy's durable single-process store: grants and operations in a SQLite file of their own, so a
 * restarted proxy still knows which grants were used and which operations finished (a retried call
 * gets the stored result instead of running again). The writes that decide whether a backend call
 * runs (using a grant, claiming and finishing an operation) are on disk before they return: each
 * awaits the state file's `syncWal()`, the one durability path of every SQLite store.
 * Same behaviour as the memory and Redis stores (one contract suite).
 */
export class SqliteProxyStore extends OneProcessProxyStore implements ProxyStore {
  private readonly database: StateDatabase;
  private readonly rows: ProxyRows;
  private nextPruneAt = 0;

  /**
   * `clock` decides when leases and retention end (the same clock the caller passes as `now`);
   * `waitPollMs`: how often a waiter re-reads without a wake-up.
   */
  constructor(
    options: { path: string; waitPollMs?: number },
    private readonly clock: { now(): number } = Date,
  ) {
    super(options.waitPollMs);
    this.database = openStateDatabase(options.path, 'hitl proxy');
    try {
      this.rows = new ProxyRows(this.database.db);
    } catch (error) {
      this.database.close();
      throw error;
    }
  }

  async createGrant(grant: NewGrant): Promise<void> {
    this.prune();
    this.rows.insertGrant(grant, grantRemoveAt(grant.expiresAt));
  }

  async decideGrant(
    grantId: string,
    decision: 'approved' | 'rejected',
    now: number,
    digest?: string,
  ): Promise<DecideOutcome> {
    const grant = this.rows.grant(grantId, this.clock.now());
    const step = decideRule(grant, decision, now, digest);
    // The move checks the state read: a verdict recorded in between makes this one `not_pending`.
    if (grant && step.to && !this.rows.moveGrant(grantId, grant.state, step.to, step.digest))
      return 'not_pending';
    return step.outcome;
  }

  async consumeGrant(grantId: string, digest: string, now: number): Promise<ConsumeOutcome> {
    const grant = this.rows.grant(grantId, this.clock.now());
    const { outcome, to } = consumeRule(grant, digest, now);
    if (!grant || !to) return outcome;
    // A caller that used it in between wins; this one is told it is used.
    if (!this.rows.moveGrant(grantId, grant.state, to)) return 'used';
    // On disk before the caller forwards: a grant once used stays used, even across a power loss.
    await this.database.syncWal();
    return outcome;
  }

  async beginOperation(op: OperationClaim, leaseMs: number, now: number): Promise<BeginResult> {
    this.prune();
    const existing = this.rows.operation(op.userId, op.key, this.clock.now());
    if (existing) return { started: false, existing };
    if (this.rows.claimOperation(op, now + leaseMs, this.clock.now())) {
      await this.database.syncWal();
      return { started: true };
    }
    const holder = this.rows.operation(op.userId, op.key, this.clock.now());
    return holder ? { started: false, existing: holder } : { started: true };
  }

  async updateOperation(
    userId: string,
    key: string,
    owner: string,
    patch: OperationPatch,
    now: number,
  ): Promise<boolean> {
    return this.rows.updateOperation(userId, key, owner, patch, now);
  }

  async finishOperation(
    userId: string,
    key: string,
    owner: string,
    result: unknown,
    retentionMs: number,
    now: number,
  ): Promise<boolean> {
    const finished = this.rows.finishOperation(
      userId,
      key,
      owner,
      result,
      now + retentionMs,
      this.clock.now(),
    );
    if (!finished) return false;
    await this.database.syncWal();
    this.waiters.notify(OperationWaiters.id(userId, key));
    return true;
  }

  async getOperation(userId: string, key: string): Promise<Operation | null> {
    return this.rows.operation(userId, key, this.clock.now()) ?? null;
  }

  async adoptOperation(
    userId: string,
    key: string,
    owner: string,
    driveUntil: number,
    now: number,
  ): Promise<Operation | null> {
    if (!this.rows.adoptOperation(userId, key, owner, driveUntil, now)) return null;
    return this.getOperation(userId, key);
  }

  /**
   * Settles what a previous process left unfinished: this process holds the file alone, so every
   * operation not `done` belongs to a caller that is gone. One whose backend call may have started
   * (`in_progress`, or its grant used) is finished with `interrupted(op)`, kept `retentionMs`: it
   * never runs again under its key. One still waiting for approval ran nothing: it is parked, so the
   * next call with its key (or `get_operation_status`) adopts it at once, instead of after the dead
   * owner's lease, and collects the same approval; its grant is kept (single use, with its expiry).
   * Fsynced, one transaction. Call once, at start, before serving.
   */
  async settleInterrupted(
    interrupted: (op: Operation) => unknown,
    retentionMs: number,
  ): Promise<{ unknownOutcome: number; parked: number }> {
    const now = this.clock.now();
    const settle = this.database.db.transaction(() => {
      let unknownOutcome = 0;
      let parked = 0;
      for (const op of this.rows.unfinishedOperations(now)) {
        const grant = op.grantId ? this.rows.grant(op.grantId, now) : undefined;
        if (op.state === 'in_progress' || grant?.state === 'used') {
          this.rows.finishOperation(op.userId, op.key, op.owner, interrupted(op), now + retentionMs, now);
          unknownOutcome++;
        } else {
          this.rows.parkOperation(op.userId, op.key);
          parked++;
        }
      }
      return { unknownOutcome, parked };
    });
    const settled = settle();
    await this.database.syncWal();
    return settled;
  }

  async close(): Promise<void> {
    this.database.close();
  }

  private prune(): void {
    const now = this.clock.now();
    if (now < this.nextPruneAt) return;
    this.nextPruneAt = now + PRUNE_EVERY_MS;
    this.rows.prune(now);
  }
}
