/**
 * The MCP calls this node holds open, keyed by the caller (a token fingerprint) and the JSON-RPC
 * request id, so an explicit `notifications/cancelled` can find the inquiry it means. Kept lean: a held
 * call costs one map entry here, and one shared signal releases them all when the node drains.
 */
export class HeldCalls {
  private readonly calls = new Map<string, string>();
  private readonly drain = new AbortController();

  static key(tokenKey: string, requestId: string | number): string {
    return `${tokenKey}\u0000${typeof requestId}:${requestId}`;
  }

  /** Aborted when the node drains: every held call answers `pending`; the inquiries stay answerable. */
  get drainSignal(): AbortSignal {
    return this.drain.signal;
  }

  hold(key: string, inquiryId: string): void {
    this.calls.set(key, inquiryId);
  }

  release(key: string, inquiryId: string): void {
    if (this.calls.get(key) === inquiryId) this.calls.delete(key);
  }

  inquiryFor(key: string): string | undefined {
    return this.calls.get(key);
  }

  get size(): number {
    return this.calls.size;
  }

  /** Releases every held call (each answers `pending` with the get_inquiry hint). */
  releaseAll(reason: string): void {
    this.drain.abort(reason);
  }
}
