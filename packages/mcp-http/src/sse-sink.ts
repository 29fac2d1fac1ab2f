import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';

/** The SSE response headers the SDK's transport sends. */
export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** Where a direct call writes its SSE frames: open until `end` or until the caller goes away. */
export interface SseSink {
  /** What the route returns to Hono. */
  response: Response;
  /** Writes a frame; false once the stream is closed (by us or by the caller). */
  write(frame: string | Uint8Array): boolean;
  /** Writes the last frame and closes the stream; a no-op once closed. */
  end(frame: string): void;
}

/**
 * Frames written straight to Node's `ServerResponse` (Hono is told the response is already sent);
 * `owner.gone()` hears the connection closing before `end`. Measured: a held call then keeps no web
 * `ReadableStream`, reader, controller or the adapter's copy loop (about 5 KB and two suspended async
 * frames per held call; bench/results/HISTORY.md, "What changed (issue 21)").
 */
export class NodeSink implements SseSink {
  readonly response = RESPONSE_ALREADY_SENT;
  private open = true;

  constructor(
    private readonly outgoing: ServerResponse,
    private readonly owner: { gone(): void },
  ) {
    outgoing.writeHead(200, SSE_HEADERS);
    outgoing.flushHeaders();
    // `on`, not `once` ('close' comes once anyway): `once`'s wrapper and its state measured 0.1 KB
    // more per held call (heap snapshots, 1,000 held; bench/results/2026-12-02-i36-v8-ab.txt).
    outgoing.on('close', () => this.closed());
  }

  write(frame: string | Uint8Array): boolean {
    if (!this.open || this.outgoing.destroyed) return false;
    this.outgoing.write(frame);
    return true;
  }

  end(frame: string): void {
    if (!this.open) return;
    this.open = false;
    if (!this.outgoing.destroyed) this.outgoing.end(frame);
  }

  private closed(): void {
    if (!this.open) return;
    this.open = false;
    this.owner.gone();
  }
}

const encoder = new TextEncoder();

/** Frames through a web `ReadableStream` response: where no Node response is at hand (`app.request`). */
export function streamSink(onGone: () => void): SseSink {
  let out: ReadableStreamDefaultController<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    start: (controller) => {
      out = controller;
    },
    cancel: () => {
      if (!out) return;
      out = undefined;
      onGone();
    },
  });
  const write = (frame: string | Uint8Array) => {
    if (!out) return false;
    try {
      out.enqueue(typeof frame === 'string' ? encoder.encode(frame) : frame);
      return true;
    } catch {
      out = undefined; // the stream is already closed or cancelled
      return false;
    }
  };
  return {
    response: new Response(stream, { status: 200, headers: SSE_HEADERS }),
    write,
    end: (frame) => {
      if (!write(frame)) return;
      try {
        out?.close();
      } catch {
        // already closed
      }
      out = undefined;
    },
  };
}
