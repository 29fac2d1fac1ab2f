import { randomBytes } from 'node:crypto';
import { errorHandler, errorResponse, restErrorOf } from '@hitl/mcp-http';
import { ERROR_WIRE, HitlError, retryAfterSeconds } from '@hitl/protocol';
import type { Context, ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { isStoreOutage, storeUnavailable } from '../core/store-outage.js';
import { secureHeaders } from './answer-link-headers.js';
import { refusalPage } from './answer-link-page.js';

/** The typed error behind a thrown one: itself, or the retryable 503 while the store is away. */
export function typedError(error: unknown): HitlError | undefined {
  if (error instanceof HitlError) return error;
  return isStoreOutage(error) ? storeUnavailable() : undefined;
}

/** `{error: {code, message}}`: the REST API, the web app and unknown paths. */
export function restErrors(logger: Logger): ErrorHandler {
  return errorHandler(logger, restErrorOf, (c) => errorResponse(c, 'internal', 'internal error'), typedError);
}

/** A page for a person, not JSON: the answer-link door (`/a/...`), opened in a browser. */
export function linkErrors(logger: Logger): ErrorHandler {
  const page = (c: Context, status: ContentfulStatusCode, message: string) => {
    const nonce = randomBytes(16).toString('base64');
    secureHeaders(c, nonce);
    return c.html(refusalPage(status, message, nonce), status);
  };
  return errorHandler(
    logger,
    (c, error) => {
      if (error.retryAfterMs !== undefined)
        c.header('Retry-After', String(retryAfterSeconds(error.retryAfterMs)));
      return page(c, ERROR_WIRE[error.code].http, error.message);
    },
    (c) => page(c, 500, 'The node could not handle this request. Try again in a moment.'),
    typedError,
  );
}
