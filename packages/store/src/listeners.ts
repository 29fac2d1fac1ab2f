import type { Inquiry } from '@hitl/protocol';
import type { ResolvedListener } from './store.js';

/** How many resolved ids {@link ResolvedListeners.emitOnce} remembers (a few seconds' worth). */
const RECENT_IDS = 10_000;

/** The `onResolved` listeners of one store instance. */
export class ResolvedListeners {
  private readonly listeners = new Set<ResolvedListener>();
  /** Ids told lately, oldest first (bounded): one resolution may reach a store twice. */
  private readonly recent = new Set<string>();

  add(listener: ResolvedListener): () => void {
    // A wrapper per registration, so the same function registered twice is called twice and each
    // unsubscribe removes only its own registration.
    const entry: ResolvedListener = (inquiry) => listener(inquiry);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** True when this inquiry's resolution was told lately (by {@link emitOnce}). */
  told(inquiryId: string): boolean {
    return this.recent.has(inquiryId);
  }

  /** Tells the listeners unless this inquiry's resolution was told lately. */
  emitOnce(inquiry: Inquiry): void {
    if (this.recent.has(inquiry.inquiryId)) return;
    this.recent.add(inquiry.inquiryId);
    if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value as string);
    this.emit(inquiry);
  }

  emit(inquiry: Inquiry): void {
    for (const listener of this.listeners) {
      try {
        listener(inquiry);
      } catch {
        // A listener's bug must not undo a resolution that is already durable, nor starve the
        // listeners after it; listeners own their error handling.
      }
    }
  }
}
