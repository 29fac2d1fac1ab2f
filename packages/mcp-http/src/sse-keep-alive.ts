/**
 * SSE comment frames that keep idle held calls from being cut by proxies, for every stream of the
 * node from one timer: streams are spread over one-second slots by when they started, and each
 * second one slot is written, so each stream gets a frame every `periodMs` and the node never writes
 * them all in one burst.
 */
/** A stream that gets keep-alive frames. */
export interface KeepAliveStream {
  keepAlive(): void;
}

export class SseKeepAlive {
  private readonly slots: Set<KeepAliveStream>[];
  private size = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(periodMs: number) {
    this.slots = Array.from({ length: Math.max(1, Math.round(periodMs / SLOT_MS)) }, () => new Set());
  }

  /** Calls `stream.keepAlive()` every period until {@link remove}. */
  add(stream: KeepAliveStream): void {
    const slot = this.slots[Math.floor(Date.now() / SLOT_MS) % this.slots.length] as Set<KeepAliveStream>;
    if (slot.has(stream)) return;
    slot.add(stream);
    this.size += 1;
    this.timer ??= this.start();
  }

  /** Stops the frames of a stream (a no-op when it gets none); a few slots to look in, no state per stream. */
  remove(stream: KeepAliveStream): void {
    if (!this.slots.some((slot) => slot.delete(stream))) return;
    this.size -= 1;
    if (this.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private start(): NodeJS.Timeout {
    let done = Math.floor(Date.now() / SLOT_MS);
    const timer = setInterval(() => {
      // A late timer (a busy loop) catches up on the slots it skipped, each once.
      const current = Math.floor(Date.now() / SLOT_MS);
      for (let second = Math.max(done + 1, current - this.slots.length + 1); second <= current; second++) {
        for (const stream of this.slots[second % this.slots.length] ?? []) stream.keepAlive();
      }
      done = current;
    }, SLOT_MS);
    timer.unref();
    return timer;
  }
}

const SLOT_MS = 1000;
