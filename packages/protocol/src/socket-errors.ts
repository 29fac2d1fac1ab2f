import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from './errors.js';

/**
 * The `data` of a Socket.IO `connect_error` the server refuses a handshake with (Socket.IO's
 * `ExtendedError`): the code travels as data, never packed into the message.
 */
export const SocketRefusalSchema = z.object({
  code: z.enum(ERROR_CODES),
  /** For `rate_limited`: when the device may try again, in ms. */
  retryAfterMs: z.number().optional(),
});
export type SocketRefusal = z.infer<typeof SocketRefusalSchema>;

/** An `Error` carrying a {@link SocketRefusal}, for `next(err)` in a Socket.IO middleware. */
export function socketRefusal(code: ErrorCode, message: string, retryAfterMs?: number): Error {
  const data: SocketRefusal = retryAfterMs === undefined ? { code } : { code, retryAfterMs };
  return Object.assign(new Error(message), { data });
}

/** The refusal a `connect_error` carries, or `undefined` for a transport failure. */
export function socketRefusalOf(error: unknown): SocketRefusal | undefined {
  const parsed = SocketRefusalSchema.safeParse((error as { data?: unknown } | null)?.data);
  return parsed.success ? parsed.data : undefined;
}

/** Refusals that retrying with the same token cannot fix. */
export function isFinalRefusal(refusal: SocketRefusal | undefined): boolean {
  return refusal?.code === 'unauthorized' || refusal?.code === 'forbidden';
}
