import { ERROR_WIRE, HitlError } from '@hitl/protocol';
import type { Context, ErrorHandler } from 'hono';
import type { Logger } from 'pino';
import { isStoreOutage, storeUnavailable } from '../core/store-outage.js';
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
