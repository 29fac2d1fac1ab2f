import { consumeRule, decideRule, grantRemoveAt } from './grant-rules.js';
import { OneProcessProxyStore } from './one-process-proxy-store.js';
import { OperationWaiters } from './op-waiters.js';
import {
  type BeginResult,
  type ConsumeOutcome,
  type DecideOutcome,
  type GrantState,
  type GrantVerdict,
  isAdoptable,
  type NewGrant,
  type Operation,
  type OperationClaim,
  type OperationPatch,
  type ProxyStore,
} from './proxy-store.js';

interface GrantRow extends NewGrant {
  state: GrantState;
  /** Epoch ms after which the row is forgotten. */
  removeAt: number;
}

interface OperationRow extends Operation {
  removeAt: number;
}

/** The embedded store: one process, no setup. Same behaviour as the Redis store (one contract suite). */
export class MemoryProxyStore extends OneProcessProxyStore implements ProxyStore {
  private readonly grants = new Map<string, GrantRow>();
  private readonly operations = new Map<string, OperationRow>();

  /**
   * `clock` decides when leases and retention end (the same clock the caller passes as `now`);
   * `waitPollMs`: how often a waiter re-reads without a wake-up.
   */
  constructor(
    private readonly clock: { now(): number } = Date,
    waitPollMs?: number,
  ) {
    super(waitPollMs);
  }

  async createGrant(grant: NewGrant): Promise<void> {
    this.prune();
    this.grants.set(grant.grantId, {
      ...grant,
      state: 'pending',
      removeAt: grantRemoveAt(grant.expiresAt),
    });
  }

  async decideGrant(
    grantId: string,
    decision: GrantVerdict,
    now: number,
    digest?: string,
  ): Promise<DecideOutcome> {
    const grant = this.liveGrant(grantId);
    const step = decideRule(grant, decision, now, digest);
    if (grant && step.to) grant.state = step.to;
    if (grant && step.digest) grant.digest = step.digest;
    return step.outcome;
  }

  async consumeGrant(grantId: string, digest: string, now: number): Promise<ConsumeOutcome> {
    const grant = this.liveGrant(grantId);
    const { outcome, to } = consumeRule(grant, digest, now);
    if (grant && to) grant.state = to;
    return outcome;
  }

  async beginOperation(op: OperationClaim, leaseMs: number, now: number): Promise<BeginResult> {
    this.prune();
    const existing = this.liveOperation(op.userId, op.key);
    if (existing) return { started: false, existing: strip(existing) };
    this.operations.set(OperationWaiters.id(op.userId, op.key), {
      ...op,
      driveUntil: op.driveUntil ?? now + leaseMs,
      updatedAt: now,
      removeAt: now + leaseMs,
    });
    return { started: true };
  }

  async updateOperation(
    userId: string,
    key: string,
    owner: string,
    patch: OperationPatch,
    now: number,
  ): Promise<boolean> {
    const row = this.liveOperation(userId, key);
    if (!row || row.owner !== owner || row.state === 'done') return false;
    Object.assign(row, patch, { updatedAt: now });
    return true;
  }

  async finishOperation(
    userId: string,
    key: string,
    owner: string,
    result: unknown,
    retentionMs: number,
    now: number,
  ): Promise<boolean> {
    const row = this.liveOperation(userId, key);
    if (!row || row.owner !== owner) return false;
    Object.assign(row, { state: 'done', result, updatedAt: now, removeAt: now + retentionMs });
    this.waiters.notify(OperationWaiters.id(userId, key));
    return true;
  }

  async getOperation(userId: string, key: string): Promise<Operation | null> {
    const row = this.liveOperation(userId, key);
    return row ? strip(row) : null;
  }

  async adoptOperation(
    userId: string,
    key: string,
    owner: string,
    driveUntil: number,
    now: number,
  ): Promise<Operation | null> {
    const row = this.liveOperation(userId, key);
    if (!row || !isAdoptable(row, now)) return null;
    Object.assign(row, { owner, driveUntil, updatedAt: now });
    return strip(row);
  }

  async close(): Promise<void> {}

  private liveGrant(grantId: string): GrantRow | undefined {
    const row = this.grants.get(grantId);
    if (row && row.removeAt <= this.clock.now()) {
      this.grants.delete(grantId);
      return undefined;
    }
    return row;
  }

  private liveOperation(userId: string, key: string): OperationRow | undefined {
    const id = OperationWaiters.id(userId, key);
    const row = this.operations.get(id);
    if (row && row.removeAt <= this.clock.now()) {
      this.operations.delete(id);
      return undefined;
    }
    return row;
  }

  private lastPrune = 0;

  /** Forgets lapsed rows, at most every 10 s, so a long-running embedded proxy does not grow. */
  private prune(): void {
    const now = this.clock.now();
    if (now - this.lastPrune < 10_000) return;
    this.lastPrune = now;
    for (const [id, row] of this.grants) if (row.removeAt <= now) this.grants.delete(id);
    for (const [id, row] of this.operations) if (row.removeAt <= now) this.operations.delete(id);
  }
}

function strip(row: OperationRow): Operation {
  const { removeAt: _removeAt, ...op } = row;
  return structuredClone(op);
}
