import type { WaitListener, WaitSignal } from '@hitl/store';

type Listener = WaitListener | (() => void);

/** What a tool call reads of its caller's signal: the SDK's `AbortSignal`, or the direct path's {@link CallAbort}. */
export interface CallSignal extends WaitSignal {
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: Listener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: Listener): void;
}

/**
 * A held call's abort: the controller and its signal in one small object. A Node `AbortSignal` is
 * an `EventTarget` with a `Map` of listeners (~0.7 KB, plus ~0.3 KB for the wait's listener), and a
 * held call keeps it until its answer, so it survives the young generation and is copied on every
 * scavenge it lives through (bench/results/HISTORY.md, issue 21). Only what a wait needs: `aborted`,
 * `reason`, listeners called once on `abort`.
 */
export class CallAbort implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  /** Usually one listener (the store's waiter): kept as is, an array only for more. */
  private listeners: Listener | Listener[] | undefined;

  /** The signal of this controller: itself. */
  get signal(): CallAbort {
    return this;
  }

  /** Aborts once (later calls do nothing), then calls every listener, each once. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of Array.isArray(listeners) ? listeners : [listeners]) {
      if (typeof listener === 'function') listener();
      else listener.handleEvent();
    }
  }

  /** Like `AbortSignal`'s: a listener added twice is called once; `once` is what it always is here. */
  addEventListener(_type: 'abort', listener: Listener, _options?: { once?: boolean }): void {
    if (this.aborted) return;
    const listeners = this.listeners;
    if (listeners === undefined) this.listeners = listener;
    else if (Array.isArray(listeners)) {
      if (!listeners.includes(listener)) listeners.push(listener);
    } else if (listeners !== listener) this.listeners = [listeners, listener];
  }

  removeEventListener(_type: 'abort', listener: Listener): void {
    const listeners = this.listeners;
    if (listeners === listener) this.listeners = undefined;
    else if (Array.isArray(listeners)) {
      const at = listeners.indexOf(listener);
      if (at >= 0) listeners.splice(at, 1);
    }
  }
}
