import { type DepthProblem, describeDepthProblem } from '@hitl/protocol';
import type { Context } from 'hono';

/** JSON-RPC's code for invalid method parameters. */
const INVALID_PARAMS = -32602;

/**
 * How many rate-limit points a POST body spends: one per JSON-RPC message, so a batch of 100
 * calls spends 100 (DESIGN §6.4); a body that is not JSON, or an empty batch, spends one.
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
    error: { code: INVALID_PARAMS, message, data: { code: 'invalid_input' } },
  });
  const ids = requestIds(body);
  if (ids.length === 0) return c.json(error(null), 400);
  return c.json(Array.isArray(body) ? ids.map(error) : error(ids[0] ?? null));
}
