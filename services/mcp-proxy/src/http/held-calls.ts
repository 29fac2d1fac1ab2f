/**
 * Calls in flight on this node, by (token, JSON-RPC id). In stateless HTTP an explicit
 * `notifications/cancelled` arrives as its own POST, so the SDK cannot abort the handler itself:
 * this registry does. A cancel that lands on another proxy node finds nothing here and is relayed
 * through the store to every node (`ProxyStore.publishCancel`). Two agents sharing a token may reuse
 * an id: every call is kept (none overwrites another), a shutdown aborts them all, and a cancel for a
 * key that names more than one call here cancels none of them.
 */
export class HeldCalls {
  private readonly calls = new Map<string, Set<AbortController>>();

  static key(tokenKey: string, requestId: string | number): string {
    return `${tokenKey}|${typeof requestId}:${requestId}`;
  }

  get size(): number {
    let size = 0;
    for (const set of this.calls.values()) size += set.size;
    return size;
  }

  /** Runs `work` with a signal that {@link cancel} aborts; forgets the call when the work ends. */
  async run<T>(key: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const set = this.calls.get(key) ?? new Set();
    this.calls.set(key, set);
    set.add(controller);
    try {
      return await work(controller.signal);
    } finally {
      set.delete(controller);
      if (set.size === 0 && this.calls.get(key) === set) this.calls.delete(key);
    }
  }

  /**
   * Cancels the one call held here under `key`: `cancelled`; `none` when none is held here (it may
   * be on another node); `ambiguous` when more than one is (none is cancelled).
   */
  cancel(key: string, reason: string): 'cancelled' | 'none' | 'ambiguous' {
    const set = this.calls.get(key);
    if (!set || set.size === 0) return 'none';
    if (set.size > 1) return 'ambiguous';
    for (const controller of set) controller.abort(new Error(reason));
    return 'cancelled';
  }

  cancelAll(reason: string): void {
    for (const controller of [...this.calls.values()].flatMap((set) => [...set])) {
      controller.abort(new Error(reason));
    }
  }
}

/** The `requestId`s of `notifications/cancelled` messages in a POST body (single message or batch). */
export function cancelledRequestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const msg = m as { method?: unknown; params?: { requestId?: unknown } } | null;
    const id = msg?.method === 'notifications/cancelled' ? msg.params?.requestId : undefined;
    return typeof id === 'string' || typeof id === 'number' ? [id] : [];
  });
}

/** Why an agent's call was aborted (the reason every node gives the work it cancels). */
export const CANCELLED = 'cancelled by the agent';

/** A cancel whose token and request id name more than one call held here: none was cancelled. */
export function logAmbiguousCancel(
  logger: { warn(fields: object, message: string): void },
  requestId: string | number | undefined,
): void {
  logger.warn(
    { requestId },
    'ambiguous cancel: more than one held call has this token and request id; none cancelled (give each agent its own token)',
  );
}
