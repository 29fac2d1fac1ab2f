import { type Inquiry, involvedUsers } from '@hitl/protocol';

interface Row {
  inquiry: Inquiry;
  /** Epoch ms (store clock) after which the row is gone. */
  expiresAt: number;
}

/** Full sweeps run at most this often (store clock); reads check each row's expiry exactly anyway. */
const SWEEP_EVERY_MS = 60_000;

/** The deadlines the timers' sweeps ask for, twice a second. */
export type DueKind = 'service' | 'escalation';

/** When an inquiry is due for each kind; undefined when it is not (ended, or nothing planned). */
const dueAt: Record<DueKind, (inquiry: Inquiry) => number | undefined> = {
  service: (inquiry) => (inquiry.status === 'pending' ? inquiry.deadlines.serviceAt : undefined),
  escalation: ({ status, escalation }) =>
    status === 'pending' && escalation !== undefined && escalation.escalatedAt === undefined
      ? escalation.at
      : undefined,
};

/**
 * The memory store's tables: rows by id, the idempotency index and each user's pending ids, with
 * retention. Expired rows vanish on access (exact) and in periodic sweeps (to free memory).
 */
export class MemoryRows {
  private readonly rows = new Map<string, Row>();
  /** `[userId, idempotencyKey]` as JSON → inquiry id. */
  private readonly byKey = new Map<string, string>();
  private readonly pendingByUser = new Map<string, Set<string>>();
  /**
   * Per kind, a time no pending inquiry is due before: a sweep before it answers at once instead of
   * reading every row (a held call's inquiry is in the table for as long as it is held).
   */
  private readonly earliest: Record<DueKind, number> = { service: Infinity, escalation: Infinity };
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

  /**
   * Live inquiries that pass `test`, in no particular order: one pass over the rows with no copy of
   * them (the deadline sweeps call this twice a second with every held inquiry in the table).
   */
  where(test: (inquiry: Inquiry) => boolean): Inquiry[] {
    const now = this.now();
    const found: Inquiry[] = [];
    for (const row of this.rows.values()) {
      if (now >= row.expiresAt) this.drop(row.inquiry);
      else if (test(row.inquiry)) found.push(row.inquiry);
    }
    return found;
  }

  /** Live inquiries due for `kind` at `now`, in no particular order. */
  due(kind: DueKind, now: number): Inquiry[] {
    if (now < this.earliest[kind]) return [];
    const at = dueAt[kind];
    // The earliest time of any pending one, found ones included: they stay due until they end.
    let earliest = Infinity;
    const found = this.where((inquiry) => {
      const time = at(inquiry);
      if (time === undefined) return false;
      if (time < earliest) earliest = time;
      return time <= now;
    });
    this.earliest[kind] = earliest;
    return found;
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
    this.noteDue(inquiry);
  }

  /**
   * Stores a new state of an existing inquiry (a pending one may have gained users by escalation);
   * an ended one is kept for the retention from now.
   */
  replace(inquiry: Inquiry): void {
    const row = this.rows.get(inquiry.inquiryId);
    if (!row) return;
    row.inquiry = inquiry;
    this.noteDue(inquiry);
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

  private noteDue(inquiry: Inquiry): void {
    for (const kind of ['service', 'escalation'] as const) {
      const time = dueAt[kind](inquiry);
      if (time !== undefined && time < this.earliest[kind]) this.earliest[kind] = time;
    }
  }

  private indexPending(inquiry: Inquiry): void {
    for (const userId of involvedUsers(inquiry)) {
      let pending = this.pendingByUser.get(userId);
      if (!pending) {
        pending = new Set();
        this.pendingByUser.set(userId, pending);
      }
      pending.add(inquiry.inquiryId);
    }
  }

  private forgetPending(inquiry: Inquiry): void {
    for (const userId of involvedUsers(inquiry)) {
      const pending = this.pendingByUser.get(userId);
      pending?.delete(inquiry.inquiryId);
      if (pending?.size === 0) this.pendingByUser.delete(userId);
    }
  }
}

function indexKey(userId: string, idempotencyKey: string): string {
  return JSON.stringify([userId, idempotencyKey]);
}
