import { type Inquiry, isAddressedTo, type Page, type Resolution, type Vote } from '@hitl/protocol';
import type { AuditOutbox, StepAudit } from '../audit/audit-chain.js';
import { putStep } from '../audit/step-audit.js';
import { CallRefs } from '../call-refs.js';
import { DEFAULT_RETENTION_MS } from '../defaults.js';
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
import { MemoryRows } from './memory-rows.js';

/** Options of {@link MemoryInquiryStore}. */
export interface MemoryStoreOptions {
  /**
   * How long an ended inquiry is kept, in ms (default 7 days). A pending one is kept until its service
   * deadline plus this, like the Redis store's key TTLs.
   */
  retentionMs?: number;
  /** The clock (epoch ms); defaults to `Date.now`. */
  now?: () => number;
  /** Where a decision's audit record goes in the decision's own step (a `MemoryAuditChain`). */
  outbox?: AuditOutbox;
}

/**
 * The embedded single-node store: inquiries in process memory, gone on restart. It is what a node
 * runs without `REDIS_URL`, and it passes the same contract suite as {@link RedisInquiryStore}.
 *
 * @example
 * const store = new MemoryInquiryStore();
 * const result = await store.create(newInquiry, { maxPendingPerUser: 1000 });
 */
export class MemoryInquiryStore implements InquiryStore {
  private readonly now: () => number;
  private readonly rows: MemoryRows;
  private readonly waiters = new Waiters();
  private readonly listeners = new ResolvedListeners();
  private readonly calls: CallRefs;
  private readonly outbox: AuditOutbox | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.outbox = options.outbox;
    this.calls = new CallRefs(this.now);
    this.rows = new MemoryRows(options.retentionMs ?? DEFAULT_RETENTION_MS, this.now);
  }

  async create(input: NewInquiry, options: CreateOptions = {}): Promise<CreateResult> {
    this.rows.sweep();
    const existing =
      this.rows.get(input.inquiryId) ??
      (input.idempotencyKey === undefined
        ? undefined
        : this.rows.getByKey(input.userId, input.idempotencyKey));
    if (existing) return { kind: 'ok', inquiry: { ...existing }, created: false };
    const cap = options.maxPendingPerUser ?? 0;
    const pending = this.rows.pendingIds(input.userId).length;
    if (cap > 0 && pending >= cap) return { kind: 'limit', pending };
    const inquiry: Inquiry = { ...structuredClone(input), status: 'pending' };
    this.rows.insert(inquiry);
    if (options.call) this.calls.remember(options.call.key, inquiry.inquiryId, options.call.ttlMs);
    return { kind: 'ok', inquiry: { ...inquiry }, created: true };
  }

  async get(inquiryId: string): Promise<Inquiry | null> {
    const inquiry = this.rows.get(inquiryId);
    return inquiry ? { ...inquiry } : null;
  }

  async getByKey(userId: string, idempotencyKey: string): Promise<Inquiry | null> {
    const inquiry = this.rows.getByKey(userId, idempotencyKey);
    return inquiry ? { ...inquiry } : null;
  }

  async list(options: ListOptions): Promise<Page<Inquiry>> {
    this.rows.sweep();
    const { userId, status, limit, cursor } = options;
    const matches = this.rows
      .where(
        (inquiry) =>
          (userId === undefined || isAddressedTo(inquiry, userId)) &&
          (status === 'all' || inquiry.status === 'pending') &&
          (cursor === undefined || inquiry.inquiryId < cursor),
      )
      .sort((a, b) => (a.inquiryId < b.inquiryId ? 1 : a.inquiryId > b.inquiryId ? -1 : 0));
    const items = matches.slice(0, limit).map((inquiry) => ({ ...inquiry }));
    const last = items.at(-1);
    return { items, nextCursor: matches.length > limit && last ? last.inquiryId : null };
  }

  async countPending(userId: string): Promise<number> {
    return this.rows.pendingIds(userId).length;
  }

  async rememberCall(callKey: string, inquiryId: string, ttlMs: number): Promise<void> {
    this.calls.remember(callKey, inquiryId, ttlMs);
  }

  async recallCall(callKey: string): Promise<string | null> {
    return this.calls.recall(callKey);
  }

  async countAllPending(): Promise<number> {
    return this.rows.where((inquiry) => inquiry.status === 'pending').length;
  }

  async resolve(
    inquiryId: string,
    resolution: Resolution,
    _asker?: unknown,
    addressedTo?: string,
    audit?: StepAudit,
  ): Promise<ResolveResult> {
    const current = resolvable(this.rows.get(inquiryId), addressedTo);
    if (!current) return { kind: 'not_found' };
    if (current.status !== 'pending') return { kind: 'lost', inquiry: { ...current } };
    const resolved = withResolution(current, structuredClone(resolution));
    putStep(this.outbox, audit, true);
    this.rows.replace(resolved);
    this.waiters.wake({ ...resolved });
    this.listeners.emit({ ...resolved });
    return { kind: 'won', inquiry: { ...resolved } };
  }

  async vote(inquiryId: string, vote: Vote, decides: Resolution, audit?: StepAudit): Promise<VoteResult> {
    const current = this.rows.get(inquiryId);
    if (!current) return { kind: 'not_found' };
    const result = castVote(current, structuredClone(vote), structuredClone(decides));
    if (result.kind === 'counted' || result.kind === 'won') {
      putStep(this.outbox, audit, result.kind === 'won');
      this.rows.replace(result.inquiry);
    }
    if (result.kind === 'won') {
      this.waiters.wake({ ...result.inquiry });
      this.listeners.emit({ ...result.inquiry });
    }
    return { ...result, inquiry: { ...result.inquiry } } as VoteResult;
  }

  async escalate(inquiryId: string, at: number, audit?: StepAudit): Promise<Inquiry | null> {
    const current = this.rows.get(inquiryId);
    const next = current && escalated(current, at);
    if (!next) return null;
    putStep(this.outbox, audit, false);
    this.rows.replace(next);
    return { ...next };
  }

  async listDueEscalations(now: number, limit: number): Promise<string[]> {
    return this.rows
      .due('escalation', now)
      .sort(
        (a, b) => (a.escalation?.at ?? 0) - (b.escalation?.at ?? 0) || (a.inquiryId < b.inquiryId ? -1 : 1),
      )
      .slice(0, limit)
      .map((inquiry) => inquiry.inquiryId);
  }

  async suggest(inquiryId: string, suggestedAnswer: Inquiry['suggestedAnswer']): Promise<boolean> {
    const current = this.rows.get(inquiryId);
    if (current?.status !== 'pending') return false;
    const { suggestedAnswer: _previous, ...rest } = current;
    this.rows.replace(
      suggestedAnswer === undefined ? rest : { ...rest, suggestedAnswer: structuredClone(suggestedAnswer) },
    );
    return true;
  }

  waitForResolution(inquiryId: string, options: WaitOptions = {}): Promise<Inquiry | null> {
    return waitForResolution(this.waiters, inquiryId, options, this.now, (id) => this.get(id));
  }

  async listDue(now: number, limit: number): Promise<string[]> {
    return this.rows
      .due('service', now)
      .sort((a, b) => a.deadlines.serviceAt - b.deadlines.serviceAt || (a.inquiryId < b.inquiryId ? -1 : 1))
      .slice(0, limit)
      .map((inquiry) => inquiry.inquiryId);
  }

  onResolved(listener: ResolvedListener): () => void {
    return this.listeners.add(listener);
  }

  async ping(_timeoutMs: number): Promise<void> {}

  /** Releases every waiter (each returns the inquiry's current state). */
  async close(): Promise<void> {
    this.waiters.wakeAll();
    await this.waiters.settled();
  }
}
