import { randomBytes } from 'node:crypto';
import { ERROR_WIRE, HitlError, retryAfterSeconds } from '@hitl/protocol';
import type { Context, ErrorHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from 'pino';
import { isStoreOutage, storeUnavailable } from '../core/store-outage.js';
import { secureHeaders } from './answer-link-headers.js';
import { refusalPage } from './answer-link-page.js';
import { errorResponse, jsonRpcError, jsonRpcErrorOf, restErrorOf } from './errors.js';

/** The typed error behind a thrown one: itself, or the retryable 503 while the store is away. */
function typedError(error: unknown): HitlError | undefined {
  if (error instanceof HitlError) return error;
  return isStoreOutage(error) ? storeUnavailable() : undefined;
}

/**
 * One error handler per door (Hono renders an error thrown in a sub-app's middleware or handlers with
 * that sub-app's `onError`): middleware throws a {@link HitlError}, the door picks the form.
 */
function errorHandler(
  logger: Logger,
  typed: (c: Context, error: HitlError) => Response,
  internal: (c: Context) => Response,
): ErrorHandler {
  return (error, c) => {
    const known = typedError(error);
    if (known) return typed(c, known);
    logger.error({ err: error, path: c.req.path }, 'request failed');
    return internal(c);
  };
}

/** `{error: {code, message}}`: the REST API, the web app and unknown paths. */
export function restErrors(logger: Logger): ErrorHandler {
  return errorHandler(logger, restErrorOf, (c) => errorResponse(c, 'internal', 'internal error'));
}

/** JSON-RPC errors: `/mcp`. */
export function jsonRpcErrors(logger: Logger): ErrorHandler {
  return errorHandler(logger, jsonRpcErrorOf, (c) =>
    jsonRpcError(c, ERROR_WIRE.internal.http, ERROR_WIRE.internal.jsonRpc, 'internal error'),
  );
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
  );
}
