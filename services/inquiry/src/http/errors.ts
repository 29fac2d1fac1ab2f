import type { ErrorCode } from '@hitl/protocol';
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
  too_early: 409,
  payload_too_large: 413,
  rate_limited: 429,
  too_many_pending: 429,
  unavailable: 503,
  internal: 500,
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
