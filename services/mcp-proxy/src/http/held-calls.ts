/**
 * Calls in flight on this node, by (token, JSON-RPC id). In stateless HTTP an explicit
 * `notifications/cancelled` arrives as its own POST, so the SDK cannot abort the handler itself:
 * this registry does. A cancel that lands on another proxy node finds nothing here and is relayed
 * through the store to every node (`ProxyStore.publishCancel`).
 */
export class HeldCalls {
  private readonly calls = new Map<string, AbortController>();

  static key(tokenKey: string, requestId: string | number): string {
    return `${tokenKey}|${typeof requestId}:${requestId}`;
  }

  get size(): number {
    return this.calls.size;
  }

  /** Runs `work` with a signal that {@link cancel} aborts; forgets the call when the work ends. */
  async run<T>(key: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    this.calls.set(key, controller);
    try {
      return await work(controller.signal);
    } finally {
      if (this.calls.get(key) === controller) this.calls.delete(key);
    }
  }

  cancel(key: string, reason: string): boolean {
    const controller = this.calls.get(key);
    controller?.abort(new Error(reason));
    return controller !== undefined;
  }

  cancelAll(reason: string): void {
    for (const controller of this.calls.values()) controller.abort(new Error(reason));
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
