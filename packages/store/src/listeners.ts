import type { Inquiry } from '@hitl/protocol';
import type { ResolvedListener } from './store.js';

/** The `onResolved` listeners of one store instance. */
export class ResolvedListeners {
  private readonly listeners = new Set<ResolvedListener>();

  add(listener: ResolvedListener): () => void {
    // A wrapper per registration, so the same function registered twice is called twice and each
    // unsubscribe removes only its own registration.
    const entry: ResolvedListener = (inquiry) => listener(inquiry);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
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
