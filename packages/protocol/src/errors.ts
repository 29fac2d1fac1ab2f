import { z } from 'zod';

/** Every error code that crosses a boundary (REST body, socket ack, JSON-RPC data). */
export const ERROR_CODES = [
  'invalid_input',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'already_resolved',
  /** A quorum approval's voter voted already. */
  'already_voted',
  'too_early',
  'payload_too_large',
  'rate_limited',
  'too_many_pending',
  'unavailable',
  'internal',
  /** A pairing code that is wrong, used or expired (one answer for all three, so a guesser learns nothing). */
  'invalid_pairing',
  /** An approve of a `requirePasskey` inquiry without a valid WebAuthn assertion (it stays pending). */
  'passkey_required',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorBodySchema = z.object({
  error: z.object({ code: z.enum(ERROR_CODES), message: z.string() }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** A failure with a wire code; the edges turn it into their own error form. */
export class HitlError extends Error {
  override readonly name = 'HitlError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For rate limits and unavailability: when the caller may retry, in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** One line naming the first bad field of a zod error, e.g. `questions.1.id: duplicate question id "a"`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
