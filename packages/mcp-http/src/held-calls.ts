/** What a held call's controller must do: abort once, with a reason. */
export interface Abortable {
  abort(reason?: unknown): void;
}

/**
 * The MCP calls this process holds open, keyed by the caller (a token fingerprint) and the JSON-RPC
 * request id, so an explicit `notifications/cancelled` (its own POST in stateless HTTP) can find the
 * call it means. Two agents sharing a token may reuse an id: every call is kept under its key (none
 * overwrites another), a drain ends them all, and a key that names more than one call is ambiguous
 * to a cancel. A call's controller is an `AbortController` unless its caller hands one of its own to
 * {@link hold}.
 */
export class HeldCalls<C extends Abortable = AbortController> {
  private readonly calls = new Map<string, HeldCall<C> | HeldCall<C>[]>();
  private count = 0;
  private emptied: (() => void)[] = [];

  constructor(
    private readonly newController: () => C = (() => new AbortController()) as unknown as () => C,
  ) {}

  static key(tokenKey: string, requestId: string | number): string {
    return `${tokenKey}\u0000${typeof requestId}:${requestId}`;
  }

  /**
   * Registers a call. Its controller is aborted when the process drains (the node's call then
   * answers `pending`; the inquiry stays answerable). `cancelsInquiry` false: a
   * `notifications/cancelled` for the call ends only the call (a task's `tasks/result`). One per call
   * on purpose: combining each call's signal with one process-wide signal would leak a reference per
   * call for the process's lifetime. `controller`: the call's own, when the caller already has one
   * for it, else a new one. `inquiryId`: what the call waits on ('' for none).
   */
  hold(
    key: string,
    inquiryId: string,
    cancelsInquiry = true,
    controller = this.newController(),
  ): HeldCall<C> {
    const call = { inquiryId, cancelsInquiry, controller };
    const held = this.calls.get(key);
    // One call per key is the rule: a plain entry, no array for it.
    if (held === undefined) this.calls.set(key, call);
    else if (Array.isArray(held)) held.push(call);
    else this.calls.set(key, [held, call]);
    this.count++;
    return call;
  }

  release(key: string, call: HeldCall<C>): void {
    const held = this.calls.get(key);
    if (held === call) this.calls.delete(key);
    else if (Array.isArray(held) && held.includes(call)) {
      const rest = held.filter((c) => c !== call);
      this.calls.set(key, rest.length === 1 ? (rest[0] as HeldCall<C>) : rest);
    } else return;
    if (--this.count > 0) return;
    const waiting = this.emptied;
    this.emptied = [];
    for (const resolve of waiting) resolve();
  }

  /** Runs `work` held under `key` with its controller; forgets the call when the work ends. */
  async run<T>(key: string, work: (controller: C) => Promise<T>): Promise<T> {
    const call = this.hold(key, '');
    try {
      return await work(call.controller);
    } finally {
      this.release(key, call);
    }
  }

  /**
   * Aborts the one call held here under `key` with `reason`: `cancelled`; `none` when none is held
   * here (it may be on another node); `ambiguous` when more than one is (none is aborted).
   */
  cancel(key: string, reason: unknown): 'cancelled' | 'none' | 'ambiguous' {
    const held = this.get(key);
    if (held.length === 0) return 'none';
    if (held.length > 1) return 'ambiguous';
    held[0]?.controller.abort(reason);
    return 'cancelled';
  }

  /** Resolves once no call is held (at once when none is). */
  whenEmpty(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.emptied.push(resolve));
  }

  /** Every call held here under `key` (more than one: the caller reused a request id). */
  get(key: string): readonly HeldCall<C>[] {
    const held = this.calls.get(key);
    if (held === undefined) return [];
    return Array.isArray(held) ? held : [held];
  }

  get size(): number {
    return this.count;
  }

  /** Aborts every held call with `reason` (the node's then answer `pending` with the get_inquiry hint). */
  releaseAll(reason: unknown): void {
    for (const call of [...this.calls.values()].flat()) call.controller.abort(reason);
  }
}

/** One suspended call this process holds open. */
export interface HeldCall<C extends Abortable = AbortController> {
  /** The inquiry the call waits on ('' when it names none). */
  inquiryId: string;
  /** A `notifications/cancelled` for this call cancels its inquiry. */
  cancelsInquiry: boolean;
  controller: C;
}

/** A `notifications/cancelled` in a POST body: the request it names and why. */
export interface Cancellation {
  requestId: string | number;
  reason?: string;
}

/** `notifications/cancelled` messages in a POST body (single message or batch). */
export function cancellations(body: unknown): Cancellation[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const msg = m as { method?: unknown; params?: { requestId?: unknown; reason?: unknown } } | null;
    if (msg?.method !== 'notifications/cancelled') return [];
    const { requestId, reason } = msg.params ?? {};
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return [];
    return [{ requestId, ...(typeof reason === 'string' ? { reason } : {}) }];
  });
}

/** A cancel whose token and request id name more than one call held here: none was cancelled. */
export function logAmbiguousCancel(
  logger: { warn(fields: object, message: string): void },
  requestId: string | number | undefined,
  calls?: number,
): void {
  logger.warn(
    { requestId, ...(calls === undefined ? {} : { calls }) },
    'ambiguous cancel: more than one held call has this token and request id; none cancelled (give each agent its own token)',
  );
}
