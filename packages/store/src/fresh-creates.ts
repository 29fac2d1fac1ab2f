import type { Inquiry } from '@hitl/protocol';

/** One inquiry this store has just created (Redis: while its node channel was live). */
export interface Fresh {
  /** The inquiry as the create wrote it (what a read would return). */
  inquiry: Inquiry;
  /** Redis: the node channel's live mark when the create was sent (`NodeFeed.liveMark`); SQLite: 0. */
  mark: number;
  /** When it was added (ms, monotonic). */
  at: number;
  /** Its end, when this store ended it before anyone waited on it. */
  ended?: Inquiry;
  /** Its resolution message, when one arrived before anyone waited on it. */
  heard?: string;
}

/**
 * The inquiries this store has just created, so that the first wait on one (the held call that
 * asked it, a moment later) needs no read: the create listed this node among the waiters while its
 * channel was live, so as long as the channel stayed live since, any end of the inquiry reached this
 * store and is kept here until that wait starts. (The SQLite store needs no channel: it is its file's
 * only writer, so every end goes through it.) Entries older than `maxAgeMs` (a create nobody waited
 * on) are dropped, and at most `maxEntries` are kept.
 */
export class FreshCreates {
  private readonly byId = new Map<string, Fresh>();

  constructor(
    private readonly maxAgeMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  add(inquiry: Inquiry, mark: number): void {
    const at = performance.now();
    for (const [id, fresh] of this.byId) {
      if (fresh.at >= at - this.maxAgeMs && this.byId.size < this.maxEntries) break;
      this.byId.delete(id);
    }
    this.byId.set(inquiry.inquiryId, { inquiry, mark, at });
  }

  /** The entry of the first wait on this inquiry (removed: later waits read). */
  take(inquiryId: string): Fresh | undefined {
    const fresh = this.byId.get(inquiryId);
    this.byId.delete(inquiryId);
    return fresh;
  }

  /** This store ended the inquiry. */
  ended(inquiry: Inquiry): void {
    const fresh = this.byId.get(inquiry.inquiryId);
    if (fresh) fresh.ended = inquiry;
  }

  /** A resolution message for an inquiry nobody here waits on yet. */
  heard(inquiryId: string, message: string): void {
    const fresh = this.byId.get(inquiryId);
    if (fresh) fresh.heard = message;
  }
}
