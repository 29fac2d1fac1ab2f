import type { ErrorCode } from './errors.js';

/** The JSON-RPC 2.0 error codes this service answers with. */
export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The first of JSON-RPC's implementation-defined server errors: a refusal at the door. */
  serverError: -32000,
} as const;
export type JsonRpcCode = (typeof JSON_RPC)[keyof typeof JSON_RPC];

/** The HTTP statuses an error code may carry. */
export type HttpErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 429 | 500 | 503;

/** How one error code reads on each wire. */
export interface ErrorWire {
  http: HttpErrorStatus;
  jsonRpc: JsonRpcCode;
}

/**
 * Every error code's HTTP status (REST `{error}`, and `/mcp` refusals before the MCP layer) and its
 * JSON-RPC code (those refusals and every tool error). A code added to `ERROR_CODES` without both
 * does not compile. The JSON-RPC codes are the ones clients have seen since the first release: a
 * refusal at the door (token, host, method, rate) is `-32000`, an oversized body an invalid request,
 * bad arguments invalid params, and a failure inside the service (pending cap, store away, a conflict)
 * an internal error; `data.code` carries the wire code either way.
 */
export const ERROR_WIRE = {
  invalid_input: { http: 400, jsonRpc: JSON_RPC.invalidParams },
  unauthorized: { http: 401, jsonRpc: JSON_RPC.serverError },
  forbidden: { http: 403, jsonRpc: JSON_RPC.serverError },
  not_found: { http: 404, jsonRpc: JSON_RPC.internalError },
  method_not_allowed: { http: 405, jsonRpc: JSON_RPC.serverError },
  already_resolved: { http: 409, jsonRpc: JSON_RPC.internalError },
  already_voted: { http: 409, jsonRpc: JSON_RPC.internalError },
  too_early: { http: 409, jsonRpc: JSON_RPC.internalError },
  payload_too_large: { http: 413, jsonRpc: JSON_RPC.invalidRequest },
  rate_limited: { http: 429, jsonRpc: JSON_RPC.serverError },
  too_many_pending: { http: 429, jsonRpc: JSON_RPC.internalError },
  unavailable: { http: 503, jsonRpc: JSON_RPC.internalError },
  internal: { http: 500, jsonRpc: JSON_RPC.internalError },
  invalid_pairing: { http: 400, jsonRpc: JSON_RPC.invalidParams },
  passkey_required: { http: 403, jsonRpc: JSON_RPC.serverError },
} as const satisfies Record<ErrorCode, ErrorWire>;

/**
 * The whole seconds a caller is told to wait (the `Retry-After` header, and the "retry in N s" of a
 * message) for a wait of `retryAfterMs` (a limit's reset time minus now): rounded up, at least 1, so
 * a caller that waits that long finds the budget back. The exact wait travels as `retryAfterMs`
 * (JSON-RPC `data`, socket refusals).
 */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}
