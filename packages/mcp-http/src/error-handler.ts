import { ERROR_WIRE, HitlError } from '@hitl/protocol';
import type { Context, ErrorHandler } from 'hono';
import { jsonRpcError, jsonRpcErrorOf } from './http-errors.js';
import type { LogSink } from './log-sink.js';

/** The typed error behind a thrown one: a {@link HitlError} itself, or what `known` makes of another. */
export type KnownError = (error: unknown) => HitlError | undefined;

const onlyTyped: KnownError = (error) => (error instanceof HitlError ? error : undefined);

/**
 * One error handler per door (Hono renders an error thrown in a sub-app's middleware or handlers with
 * that sub-app's `onError`): middleware throws a {@link HitlError}, the door picks the form; anything
 * else is logged and answered by `internal`.
 */
export function errorHandler(
  logger: LogSink,
  typed: (c: Context, error: HitlError) => Response,
  internal: (c: Context) => Response,
  known: KnownError = onlyTyped,
): ErrorHandler {
  return (error, c) => {
    const typedError = known(error);
    if (typedError) return typed(c, typedError);
    logger.error({ err: error, path: c.req.path }, 'request failed');
    return internal(c);
  };
}

/** JSON-RPC errors: the form of `/mcp`, the node's and the proxy's. */
export function jsonRpcErrors(logger: LogSink, known?: KnownError): ErrorHandler {
  return errorHandler(
    logger,
    jsonRpcErrorOf,
    (c) => jsonRpcError(c, ERROR_WIRE.internal.http, ERROR_WIRE.internal.jsonRpc, 'internal error'),
    known,
  );
}
