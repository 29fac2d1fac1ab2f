import type { IncomingMessage } from 'node:http';
import { HitlError } from '@hitl/protocol';
import type { MiddlewareHandler } from 'hono';

/**
 * Refuses bodies over `maxBytes` without materialising a WHATWG `Request` (Hono's `bodyLimit` reads
 * `c.req.raw.body`, which builds a full Request and body stream per request; a held MCP call would keep
 * them alive). With `Content-Length` the header decides; without it (chunked) the body is read from the
 * socket up to the cap and handed to `@hono/node-server` as `rawBody`, which its body readers use.
 * Over the cap it throws `payload_too_large` (413), rendered by the door's error handler.
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const tooLarge = (): never => {
      // The rest of the body is never read: close the connection so no client reuses it.
      c.header('Connection', 'close');
      throw new HitlError('payload_too_large', `request body over ${maxBytes} bytes`);
    };
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number(length) > maxBytes ? tooLarge() : next();
    }
    const incoming = (c.env as { incoming?: IncomingMessage & { rawBody?: Buffer } } | undefined)?.incoming;
    if (!incoming || c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const body = await readCapped(incoming, maxBytes);
    if (body === null) return tooLarge();
    incoming.rawBody = body;
    return next();
  };
}

function readCapped(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        incoming.resume();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
  });
}
