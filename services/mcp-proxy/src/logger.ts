import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/**
 * The proxy's root logger; tokens never reach the output. Over stdio, stdout carries the MCP
 * protocol, so logs go to stderr (fd 2).
 */
export function createProxyLogger(level: string, toStderr: boolean): Logger {
  const options = {
    level,
    base: { service: 'mcp-proxy' },
    redact: {
      paths: ['token', '*.token', 'authorization', '*.authorization', 'secret'],
      censor: '[redacted]',
    },
  };
  const destination: DestinationStream = pino.destination(toStderr ? 2 : 1);
  return pino(options, destination);
}
