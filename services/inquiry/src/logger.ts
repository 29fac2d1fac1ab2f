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
