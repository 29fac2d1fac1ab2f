/** What this package writes to a log: pino's `Logger` is one (so is any logger with these three). */
export interface LogSink {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
