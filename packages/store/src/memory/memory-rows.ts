import { audienceOf, type Inquiry } from '@hitl/protocol';

interface Row {
  inquiry: Inquiry;
  /** Epoch ms (store clock) after which the row is gone. */
  expiresAt: number;
}

/** Full sweeps run at most this often (store clock); reads check each row's expiry exactly anyway. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The memory store's tables: rows by id, the idempotency index and each user's pending ids, with
 * retention. Expired rows vanish on access (exact) and in periodic sweeps (to free memory).
 */
export class MemoryRows {
  private readonly rows = new Map<string, Row>();
  /** `[userId, idempotencyKey]` as JSON → inquiry id. */
  private readonly byKey = new Map<string, string>();
  private readonly pendingByUser = new Map<string, Set<string>>();
  private nextSweepAt = 0;

  constructor(
    private readonly retentionMs: number,
    private readonly now: () => number,
  ) {}

  get(inquiryId: string): Inquiry | undefined {
    const row = this.rows.get(inquiryId);
    if (row && this.now() >= row.expiresAt) {
      this.drop(row.inquiry);
      return undefined;
    }
    return row?.inquiry;
  }

  getByKey(userId: string, idempotencyKey: string): Inquiry | undefined {
    const inquiryId = this.byKey.get(indexKey(userId, idempotencyKey));
    return inquiryId === undefined ? undefined : this.get(inquiryId);
  }

  /** Live inquiries, in no particular order. */
  all(): Inquiry[] {
    const live: Inquiry[] = [];
    for (const { inquiry } of [...this.rows.values()]) {
      const current = this.get(inquiry.inquiryId);
      if (current) live.push(current);
    }
    return live;
  }

  /** Ids of the live pending inquiries this user asked or is asked. */
  pendingIds(userId: string): string[] {
    return [...(this.pendingByUser.get(userId) ?? [])].filter((id) => this.get(id)?.status === 'pending');
  }

  /** Adds a new pending inquiry, kept until its service deadline (or now, if later) plus the retention. */
  insert(inquiry: Inquiry): void {
    const expiresAt = Math.max(this.now(), inquiry.deadlines.serviceAt) + this.retentionMs;
    this.rows.set(inquiry.inquiryId, { inquiry, expiresAt });
    if (inquiry.idempotencyKey !== undefined) {
      this.byKey.set(indexKey(inquiry.userId, inquiry.idempotencyKey), inquiry.inquiryId);
    }
    this.indexPending(inquiry);
  }

  /**
   * Stores a new state of an existing inquiry (a pending one may have gained users by escalation);
   * an ended one is kept for the retention from now.
   */
  replace(inquiry: Inquiry): void {
    const row = this.rows.get(inquiry.inquiryId);
    if (!row) return;
    row.inquiry = inquiry;
    if (inquiry.status === 'pending') this.indexPending(inquiry);
    else {
      row.expiresAt = this.now() + this.retentionMs;
      this.forgetPending(inquiry);
    }
  }

  /** Drops every expired row, at most once per {@link SWEEP_EVERY_MS}. */
  sweep(): void {
    const now = this.now();
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + Math.min(SWEEP_EVERY_MS, this.retentionMs);
    for (const row of [...this.rows.values()]) if (now >= row.expiresAt) this.drop(row.inquiry);
  }

  private drop(inquiry: Inquiry): void {
    this.rows.delete(inquiry.inquiryId);
    this.forgetPending(inquiry);
    if (inquiry.idempotencyKey === undefined) return;
    const key = indexKey(inquiry.userId, inquiry.idempotencyKey);
    if (this.byKey.get(key) === inquiry.inquiryId) this.byKey.delete(key);
  }

  private indexPending(inquiry: Inquiry): void {
    for (const userId of involved(inquiry)) {
      let pending = this.pendingByUser.get(userId);
      if (!pending) {
        pending = new Set();
        this.pendingByUser.set(userId, pending);
      }
      pending.add(inquiry.inquiryId);
    }
  }

  private forgetPending(inquiry: Inquiry): void {
    for (const userId of involved(inquiry)) {
      const pending = this.pendingByUser.get(userId);
      pending?.delete(inquiry.inquiryId);
      if (pending?.size === 0) this.pendingByUser.delete(userId);
    }
  }
}

/** The asker's user and every user the inquiry is addressed to. */
function involved(inquiry: Inquiry): Set<string> {
  return new Set([inquiry.userId, ...audienceOf(inquiry)]);
}

function indexKey(userId: string, idempotencyKey: string): string {
  return JSON.stringify([userId, idempotencyKey]);
}
