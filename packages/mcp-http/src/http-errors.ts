import { ERROR_WIRE, type ErrorCode, HitlError, type JsonRpcCode, retryAfterSeconds } from '@hitl/protocol';
import type { Context } from 'hono';

/** `{error: {code, message}}` with the code's status (and `Retry-After` when given). */
export function errorResponse(c: Context, code: ErrorCode, message: string, retryAfterMs?: number): Response {
  if (retryAfterMs !== undefined) c.header('Retry-After', String(retryAfterSeconds(retryAfterMs)));
  return c.json({ error: { code, message } }, ERROR_WIRE[code].http);
}

/**
 * A JSON-RPC error response for a request the MCP layer never saw and that no error code names
 * (a body that is not JSON); a typed refusal goes through {@link jsonRpcErrorOf}.
 */
export function jsonRpcError(
  c: Context,
  status: 400 | 500,
  rpcCode: JsonRpcCode,
  message: string,
  data?: Record<string, unknown>,
): Response {
  return c.json(
    { jsonrpc: '2.0', error: { code: rpcCode, message, ...(data ? { data } : {}) }, id: null },
    status,
  );
}

/** The headers a typed error carries in either form: `WWW-Authenticate` for 401, `Retry-After` with a retry hint. */
function errorHeaders(c: Context, error: HitlError): void {
  if (error.code === 'unauthorized') c.header('WWW-Authenticate', 'Bearer');
  if (error.retryAfterMs !== undefined)
    c.header('Retry-After', String(retryAfterSeconds(error.retryAfterMs)));
}

/** A typed error as the REST doors answer it: `{error: {code, message}}` with the code's status. */
export function restErrorOf(c: Context, error: HitlError): Response {
  errorHeaders(c, error);
  return c.json({ error: { code: error.code, message: error.message } }, ERROR_WIRE[error.code].http);
}

/** The `data` of a typed error's JSON-RPC form: the wire code, and the retry hint in ms when it has one. */
export function jsonRpcDataOf(error: HitlError): { code: ErrorCode; retryAfterMs?: number } {
  return error.retryAfterMs === undefined
    ? { code: error.code }
    : { code: error.code, retryAfterMs: error.retryAfterMs };
}

/**
 * A typed error as `/mcp` answers it before the MCP layer (the node's and the proxy's): the code's HTTP
 * status and JSON-RPC code from the one table, `data` carrying the wire code (and the retry hint).
 */
export function jsonRpcErrorOf(c: Context, error: HitlError): Response {
  errorHeaders(c, error);
  const wire = ERROR_WIRE[error.code];
  return c.json(
    {
      jsonrpc: '2.0',
      error: { code: wire.jsonRpc, message: error.message, data: jsonRpcDataOf(error) },
      id: null,
    },
    wire.http,
  );
}

/** {@link jsonRpcErrorOf} for a refusal made on the spot: `code` with `message`. */
export function jsonRpcRefusal(c: Context, code: ErrorCode, message: string): Response {
  return jsonRpcErrorOf(c, new HitlError(code, message));
}
