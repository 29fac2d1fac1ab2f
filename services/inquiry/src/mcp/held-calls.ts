import { CallAbort } from './call-abort.js';

/**
 * The MCP calls this node holds open, keyed by the caller (a token fingerprint) and the JSON-RPC
 * request id, so an explicit `notifications/cancelled` can find the inquiry it means. Two agents
 * sharing a token may reuse an id: every call is kept under its key (none overwrites another), a
 * drain ends them all, and a key that names more than one call is ambiguous to a cancel.
 */
export class HeldCalls {
  private readonly calls = new Map<string, HeldCall | HeldCall[]>();
  private count = 0;
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
    const held = this.calls.get(key);
    // One call per key is the rule: a plain entry, no array for it.
    if (held === undefined) this.calls.set(key, call);
    else if (Array.isArray(held)) held.push(call);
    else this.calls.set(key, [held, call]);
    this.count++;
    return call;
  }

  release(key: string, call: HeldCall): void {
    const held = this.calls.get(key);
    if (held === call) this.calls.delete(key);
    else if (Array.isArray(held) && held.includes(call)) {
      const rest = held.filter((c) => c !== call);
      this.calls.set(key, rest.length === 1 ? (rest[0] as HeldCall) : rest);
    } else return;
    if (--this.count > 0) return;
    const waiting = this.emptied;
    this.emptied = [];
    for (const resolve of waiting) resolve();
  }

  /** Resolves once no call is held (at once when none is). */
  whenEmpty(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.emptied.push(resolve));
  }

  /** Every call held here under `key` (more than one: the caller reused a request id). */
  get(key: string): readonly HeldCall[] {
    const held = this.calls.get(key);
    if (held === undefined) return [];
    return Array.isArray(held) ? held : [held];
  }

  get size(): number {
    return this.count;
  }

  /** Releases every held call (each answers `pending` with the get_inquiry hint). */
  releaseAll(reason: string): void {
    for (const call of [...this.calls.values()].flat()) call.controller.abort(reason);
  }
}

/** One suspended `tools/call` this node holds open. */
export interface HeldCall {
  inquiryId: string;
  /** A `notifications/cancelled` for this call cancels its inquiry. */
  cancelsInquiry: boolean;
  controller: CallAbort;
}
