type Listener = EventListener | EventListenerObject;

/**
 * The direct path's abort for a held call: the controller and, as `signal`, the part of an
 * `AbortSignal` a held call's wait uses, in one small object. Measured: a Node `AbortController` is
 * an `EventTarget` with a `Map` of listeners, ~0.7 KB plus ~0.3 KB for the wait's listener, kept
 * until the answer; this and the one-object `DirectRun` took RSS per held call from 14.8 to 11.9 KB
 * (bench/results/HISTORY.md, "Issue 21 in session 9").
 */
export class CallAbort
  implements Pick<AbortSignal, 'aborted' | 'reason' | 'addEventListener' | 'removeEventListener'>
{
  aborted = false;
  reason: unknown = undefined;
  private listeners: Listener[] | undefined;

  /** The signal of this controller: itself. */
  get signal(): this {
    return this;
  }

  /** Aborts once (later calls do nothing), then calls every listener once with an `abort` event. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    const event = new Event('abort');
    for (const listener of listeners) {
      if (typeof listener === 'function') listener(event);
      else listener.handleEvent(event);
    }
  }

  /** Like `AbortSignal`'s: a listener added twice is called once, and every listener only once. */
  addEventListener(type: string, listener: Listener): void {
    if (type !== 'abort' || this.aborted) return;
    if (this.listeners === undefined) this.listeners = [listener];
    else if (!this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(type: string, listener: Listener): void {
    const at = type === 'abort' ? (this.listeners?.indexOf(listener) ?? -1) : -1;
    if (at >= 0) this.listeners?.splice(at, 1);
  }
}
