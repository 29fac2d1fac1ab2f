import type { Progress } from '@modelcontextprotocol/sdk/types.js';

export type SendProgress = (progress: {
  progress: number;
  total?: number;
  message?: string;
}) => Promise<unknown> | undefined;

/**
 * Re-maps progress onto the agent's own token and keeps it increasing across the two phases of a
 * gated call: approval heartbeats first, then the backend's own progress (shifted past them).
 * A call that needed no approval passes the backend's numbers through unchanged.
 */
export class ProgressRelay {
  private last = -1;
  private base = 0;
  /** The notifications still being written, in order; the result must not overtake them. */
  private sending: Promise<unknown> = Promise.resolve();

  constructor(private readonly send: SendProgress) {}

  /** A heartbeat of the approval wait. */
  approval(message: string): void {
    this.emit({ progress: this.last + 1, message });
  }

  /** From now on numbers come from the backend. */
  startBackend(): void {
    this.base = Math.max(0, this.last);
  }

  /** The backend's progress, restored onto the agent's token. */
  backend(progress: Progress): void {
    this.emit({
      progress: this.base + progress.progress,
      ...(progress.total === undefined ? {} : { total: this.base + progress.total }),
      ...(progress.message === undefined ? {} : { message: progress.message }),
    });
  }

  private emit(progress: { progress: number; total?: number; message?: string }): void {
    if (progress.progress <= this.last) return;
    this.last = progress.progress;
    this.sending = this.sending.then(() => this.send(progress)).catch(() => undefined);
  }

  /** Resolves once every notification emitted so far has been handed to the transport. */
  flush(): Promise<unknown> {
    return this.sending;
  }
}
