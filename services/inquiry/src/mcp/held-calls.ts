import { CallAbort } from './call-abort.js';

/**
 * The MCP calls this node holds open, keyed by the caller (a token fingerprint) and the JSON-RPC
 * request id, so an explicit `notifications/cancelled` can find the inquiry it means.
 */
export class HeldCalls {
  private readonly calls = new Map<string, HeldCall>();
  private emptied: (() => void)[] = [];

  static key(tokenKey: string, requestId: string | number): string {
    return `${tokenKey}\u0000${typeof requestId}:${requestId}`;
  }

  /**
   * Registers a call. Its controller is aborted when the node drains (the call then answers
   * `pending`; the inquiry stays answerable). `cancelsInquiry` false: a `notifications/cancelled`
   * for the call ends only the call (a task's `tasks/result`). One per call on purpose: combining each call's signal
   * with one node-wide signal would leak a reference per call for the node's lifetime. `controller`:
   * the call's own, when the caller already has one for it (the direct path), else a new one.
   */
  hold(key: string, inquiryId: string, cancelsInquiry = true, controller = new CallAbort()): HeldCall {
    const call = { inquiryId, cancelsInquiry, controller };
    this.calls.set(key, call);
    return call;
  }

  release(key: string, call: HeldCall): void {
    if (this.calls.get(key) !== call) return;
    this.calls.delete(key);
    if (this.calls.size > 0) return;
    const waiting = this.emptied;
    this.emptied = [];
    for (const resolve of waiting) resolve();
  }

  /** Resolves once no call is held (at once when none is). */
  whenEmpty(): Promise<void> {
    if (this.calls.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.emptied.push(resolve));
  }

  /** The call held here under `key`, if any. */
  get(key: string): HeldCall | undefined {
    return this.calls.get(key);
  }

  get size(): number {
    return this.calls.size;
  }

  /** Releases every held call (each answers `pending` with the get_inquiry hint). */
  releaseAll(reason: string): void {
    for (const call of this.calls.values()) call.controller.abort(reason);
  }
}

/** One suspended `tools/call` this node holds open. */
export interface HeldCall {
  inquiryId: string;
  /** A `notifications/cancelled` for this call cancels its inquiry. */
  cancelsInquiry: boolean;
  controller: CallAbort;
}
