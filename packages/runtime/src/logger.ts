import { type Logger, pino } from 'pino';

export type { Logger };

/** Root logger; tokens never reach the output. */
export function createLogger(level: string, nodeId: string): Logger {
  return pino({
    level,
    base: { node: nodeId },
    redact: {
      paths: [
        'token',
        '*.token',
        'authorization',
        '*.authorization',
        'req.headers.authorization',
        'req.headers.cookie',
        'handshake.auth.token',
        'secret',
      ],
      censor: '[redacted]',
    },
  });
}

/**
 * Writes out what the logger still holds, then stops it; resolves at most `ms` later. Call it before
 * `process.exit`: pino's exit hook otherwise flushes synchronously, and sonic-boom's sync flush retries
 * a write that failed with EPIPE forever, so a node whose stdout reader has gone (`| tee` after Ctrl-C)
 * would hang in that loop, deaf to further signals. Ended here, the hook has nothing left to do; a
 * broken pipe surfaces as pino's own EPIPE handling (it then drops further output).
 */
export function endLogOutput(logger: Logger, ms = 1000): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as Partial<
    NodeJS.EventEmitter & { end: () => void }
  >;
  if (typeof stream.end !== 'function' || typeof stream.once !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    stream.once?.('close', done);
    stream.once?.('error', done);
    try {
      stream.end?.();
    } catch {
      done(); // already ended
    }
  });
}
