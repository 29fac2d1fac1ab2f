import type { App } from '@modelcontextprotocol/ext-apps';
import type { ToolResultLike } from './card-result';

/** What the host told the card so far: the call's input and its result. */
export interface CardFeedState {
  input?: Record<string, unknown>;
  result?: ToolResultLike;
}

/**
 * The host's tool input and result, kept from the first moment: the handlers are set before
 * `connect()` (a host may send both right after the handshake), and the view subscribes later.
 */
export function cardFeed(app: App) {
  let state: CardFeedState = {};
  const listeners = new Set<(state: CardFeedState) => void>();
  const set = (next: CardFeedState) => {
    state = next;
    for (const listener of listeners) listener(state);
  };
  app.ontoolinput = ({ arguments: args }) =>
    set({ ...state, input: (args ?? {}) as Record<string, unknown> });
  app.ontoolresult = (result) => set({ ...state, result: result as ToolResultLike });
  return {
    get: () => state,
    subscribe(listener: (state: CardFeedState) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type CardFeed = ReturnType<typeof cardFeed>;
