import type { ErrorCode, HitlError } from '@hitl/protocol';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** Every error code has its HTTP status; a new code without one does not compile. */
export const HTTP_STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  already_resolved: 409,
  already_voted: 409,
  too_early: 409,
  payload_too_large: 413,
  rate_limited: 429,
  too_many_pending: 429,
  unavailable: 503,
  internal: 500,
  invalid_pairing: 400,
};

/** `{error: {code, message}}` with the code's status (and `Retry-After` when given). */
export function errorResponse(c: Context, code: ErrorCode, message: string, retryAfterMs?: number): Response {
  if (retryAfterMs !== undefined)
    c.header('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return c.json({ error: { code, message } }, HTTP_STATUS[code]);
}

/** JSON-RPC error codes used before a request reaches the MCP server. */
export const JSONRPC = { parseError: -32700, invalidRequest: -32600, serverError: -32000 } as const;

/** A JSON-RPC error response for a request the MCP layer never saw (auth, limits, bad JSON). */
export function jsonRpcError(
  c: Context,
  status: ContentfulStatusCode,
  rpcCode: number,
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
    c.header('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))));
}

/** A typed error as the REST doors answer it: `{error: {code, message}}` with the code's status. */
export function restErrorOf(c: Context, error: HitlError): Response {
  errorHeaders(c, error);
  return c.json({ error: { code: error.code, message: error.message } }, HTTP_STATUS[error.code]);
}

/**
 * A typed error as `/mcp` answers it: the code's HTTP status, a JSON-RPC error whose `data` carries the
 * wire code (and the retry hint); an oversized body is an invalid request, everything else a server error.
 */
export function jsonRpcErrorOf(c: Context, error: HitlError): Response {
  errorHeaders(c, error);
  const rpcCode = error.code === 'payload_too_large' ? JSONRPC.invalidRequest : JSONRPC.serverError;
  const data = {
    code: error.code,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  };
  return jsonRpcError(c, HTTP_STATUS[error.code], rpcCode, error.message, data);
}
