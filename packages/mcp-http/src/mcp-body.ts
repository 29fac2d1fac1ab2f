import {
  type DepthProblem,
  describeDepthProblem,
  ERROR_WIRE,
  JSON_RPC,
  jsonDepthProblem,
} from '@hitl/protocol';
import type { Context, MiddlewareHandler } from 'hono';
import { type AuthVariables, type RequestBudget, rateLimited } from './doors.js';
import { jsonRpcError } from './http-errors.js';
import type { LogSink } from './log-sink.js';

/** What {@link readMcpBody} leaves for the route: the parsed JSON-RPC body. */
export interface McpBodyVariables extends AuthVariables {
  mcpBody: unknown;
}

/**
 * How many rate-limit points a POST body spends: one per JSON-RPC message, so a batch of 100
 * calls spends 100; a body that is not JSON, or an empty batch, spends one.
 */
export function messageCount(body: unknown): number {
  return Array.isArray(body) ? Math.max(1, body.length) : 1;
}

/** The ids of the JSON-RPC requests in a body (notifications have none). */
function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const id = (m as { id?: unknown } | null)?.id;
    return typeof id === 'string' || typeof id === 'number' ? [id] : [];
  });
}

/**
 * The answer to a body nested too deep: an invalid-params error naming the field for each request
 * in it (the whole POST is refused), as plain JSON the SDK client reads like any JSON-RPC response.
 */
export function tooDeepResponse(c: Context, body: unknown, problem: DepthProblem): Response {
  const message = `Invalid params: ${describeDepthProblem(problem)}`;
  const error = (id: string | number | null) => ({
    jsonrpc: '2.0',
    id,
    error: { code: ERROR_WIRE.invalid_input.jsonRpc, message, data: { code: 'invalid_input' } },
  });
  const ids = requestIds(body);
  if (ids.length === 0) return c.json(error(null), 400);
  return c.json(Array.isArray(body) ? ids.map(error) : error(ids[0] ?? null));
}

/**
 * Reads a `/mcp` POST body once, after the token check: parses it, spends one rate-limit point per
 * JSON-RPC message when a budget is given (429 over it, nothing done), and refuses JSON nested deeper than 64 levels
 * as invalid params naming the field (logged) before anything walks it: a recursive validator, or the
 * context check's `JSON.stringify`, would overflow the stack on it.
 */
export function readMcpBody(
  limiter: RequestBudget | undefined,
  logger: LogSink,
): MiddlewareHandler<{ Variables: McpBodyVariables }> {
  return async (c, next) => {
    let body: unknown;
    let parsed = true;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      parsed = false;
    }
    const rate = await limiter?.consume(c.get('tokenKey'), messageCount(body));
    if (rate && !rate.ok) throw rateLimited(rate.retryAfterMs);
    if (!parsed) return jsonRpcError(c, 400, JSON_RPC.parseError, 'Parse error: the body is not valid JSON');
    const tooDeep = jsonDepthProblem(body);
    if (tooDeep) {
      const field = describeDepthProblem(tooDeep);
      logger.warn({ userId: c.get('claims').sub, field }, 'refused a JSON body nested deeper than 64 levels');
      return tooDeepResponse(c, body, tooDeep);
    }
    c.set('mcpBody', body);
    return next();
  };
}
