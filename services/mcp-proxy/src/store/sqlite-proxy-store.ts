import { durably, openStateDatabase, type StateDatabase } from '@hitl/store';
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

/** How long a decided or used grant stays readable after its expiry (as in the memory store). */
const GRANT_RETENTION_MS = 60 * 60_000;
/** Lapsed rows are deleted at most this often; reads skip them exactly anyway. */
const PRUNE_EVERY_MS = 60_000;

/**
 * The proxy's durable single-process store: grants and operations in a SQLite file of their own, so a
 * restarted proxy still knows which grants were used and which operations finished (a retried call
 * gets the stored result instead of running again). The writes that decide whether a backend call
 * runs (using a grant, claiming and finishing an operation) are fsynced before they return.
 * Same behaviour as the memory and Redis stores (one contract suite).
 */
export class SqliteProxyStore implements ProxyStore {
  private readonly cancelListeners = new Set<(callKey: string) => void>();
  private readonly waiters: OperationWaiters;
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
    this.waiters = new OperationWaiters(options.waitPollMs);
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
    this.rows.insertGrant(grant, grant.expiresAt + GRANT_RETENTION_MS);
  }

  async decideGrant(grantId: string, decision: 'approved' | 'rejected', now: number): Promise<DecideOutcome> {
    const grant = this.rows.grant(grantId, this.clock.now());
    if (!grant) return 'not_found';
    if (grant.state !== 'pending') return 'not_pending';
    const to = now > grant.expiresAt ? 'expired' : decision;
    if (!this.rows.moveGrant(grantId, 'pending', to)) return 'not_pending';
    return to;
  }

  async consumeGrant(grantId: string, digest: string, now: number): Promise<ConsumeOutcome> {
    const grant = this.rows.grant(grantId, this.clock.now());
    if (!grant) return 'not_found';
    if (grant.digest !== digest) return 'mismatch';
    if (grant.state === 'used' || grant.state === 'expired') return grant.state;
    if (grant.state !== 'approved') return 'not_approved';
    const to = now > grant.expiresAt ? 'expired' : 'used';
    // Fsynced: a grant once used stays used, even across a power loss.
    const moved = durably(this.database.db, () => this.rows.moveGrant(grantId, 'approved', to));
    if (!moved) return 'used';
    return to === 'used' ? 'ok' : 'expired';
  }

  async beginOperation(op: OperationClaim, leaseMs: number, now: number): Promise<BeginResult> {
    this.prune();
    const existing = this.rows.operation(op.userId, op.key, this.clock.now());
    if (existing) return { started: false, existing };
    const claimed = durably(this.database.db, () =>
      this.rows.claimOperation(op, now + leaseMs, this.clock.now()),
    );
    if (claimed) return { started: true };
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
    const finished = durably(this.database.db, () =>
      this.rows.finishOperation(userId, key, owner, result, now + retentionMs, this.clock.now()),
    );
    if (finished) this.waiters.notify(OperationWaiters.id(userId, key));
    return finished;
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

  waitForOperation(
    userId: string,
    key: string,
    signal: AbortSignal,
    settled?: (op: Operation) => boolean,
  ): Promise<Operation | null> {
    return this.waiters.wait(
      OperationWaiters.id(userId, key),
      () => this.getOperation(userId, key),
      signal,
      settled,
    );
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
  settleInterrupted(
    interrupted: (op: Operation) => unknown,
    retentionMs: number,
  ): { unknownOutcome: number; parked: number } {
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
    return durably(this.database.db, () => settle());
  }

  /** One process: a cancel reaches this process's listeners only. */
  async publishCancel(callKey: string): Promise<void> {
    for (const listener of this.cancelListeners) listener(callKey);
  }

  async onCancel(listener: (callKey: string) => void): Promise<void> {
    this.cancelListeners.add(listener);
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
