import type { ServerResponse } from 'node:http';
import type { HostPolicy, TokenService } from '@hitl/auth';
import { LIMITS, type TokenClaims } from '@hitl/protocol';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import type { RateLimiter } from '../core/rate-limit.js';
import { guardHost, requireRole } from '../http/auth.js';
import { limitBody } from '../http/body-limit.js';
import { jsonRpcErrors } from '../http/error-handlers.js';
import { jsonRpcRefusal } from '../http/errors.js';
import type { CallContext } from './call-context.js';
import { descriptionsFor } from './descriptions.js';
import { directCallOf, KEEP_ALIVE_MS, serveDirectCall } from './direct-call.js';
import { HeldCalls } from './held-calls.js';
import { type McpBodyVariables, readMcpBody } from './mcp-body.js';
import { createMcpServer } from './mcp-server.js';
import { unsupportedVersion } from './protocol-version.js';
import { SseKeepAlive } from './sse-keep-alive.js';

/** What the route needs: what every tool call needs but the caller's own claims, and the door's parts. */
export interface McpRouteDeps extends Omit<CallContext, 'claims' | 'tokenKey'> {
  tokens: TokenService;
  hostPolicy: HostPolicy;
  limiter: RateLimiter;
  logger: Logger;
  version: string;
}

type Env = { Variables: McpBodyVariables };

/** `notifications/cancelled` messages in a POST body (single message or batch). */
function cancellations(body: unknown): { requestId: string | number; reason?: string }[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const msg = m as { method?: unknown; params?: { requestId?: unknown; reason?: unknown } } | null;
    if (msg?.method !== 'notifications/cancelled') return [];
    const { requestId, reason } = msg.params ?? {};
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return [];
    return [{ requestId, ...(typeof reason === 'string' ? { reason } : {}) }];
  });
}

/**
 * A client whose own timer cut the call says so in the reason (the TS SDK sends "MCP error -32001:
 * Request timed out"). That is not a person or agent calling the question off: like a dropped
 * connection it only ends the call, and the answer is collected later (`get_inquiry`, the same
 * `idempotencyKey`). docs/CLIENTS.md says so.
 */
export function isClientTimeout(reason: string | undefined): boolean {
  return reason !== undefined && /-32001|timed? ?out/i.test(reason);
}

/**
 * `POST /mcp`, stateless Streamable HTTP: a fresh SDK server and transport per request, always
 * answered over SSE so headers leave at once; a plain `tools/call` of our tools is served on our own
 * SSE stream instead (direct-call.ts), with the same frames. `GET`/`DELETE` are 405 (no sessions, no standalone stream).
 * Every refusal before the MCP layer (host, body size, token, rate) is thrown and rendered as JSON-RPC here.
 */
export function mcpRoutes(deps: McpRouteDeps): Hono<Env> {
  const app = new Hono<Env>();
  app.onError(jsonRpcErrors(deps.logger));
  app.use('/', guardHost(deps.hostPolicy), limitBody(LIMITS.bodyBytes));
  const keepAlive = new SseKeepAlive(KEEP_ALIVE_MS);
  const callContext = callContextOf(deps);
  const methodNotAllowed = (c: Context) => {
    c.header('Allow', 'POST');
    return jsonRpcRefusal(c, 'method_not_allowed', 'Method not allowed: this server is stateless; use POST');
  };
  app.get('/', methodNotAllowed);
  app.delete('/', methodNotAllowed);

  app.post('/', requireRole(deps.tokens, ['agent']), readMcpBody(deps.limiter, deps.logger), async (c) => {
    const body = c.get('mcpBody');
    const refusal = unsupportedVersion(c, body);
    if (refusal) return refusal;
    const claims = c.get('claims');
    const tokenKey = c.get('tokenKey');
    for (const { requestId, reason } of cancellations(body)) {
      if (isClientTimeout(reason))
        deps.logger.info({ requestId, reason }, 'client timed out; the inquiry stays open');
      else void cancelHeldCall(deps, claims, tokenKey, requestId);
    }

    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    const direct = directCallOf(body, c.req.raw.headers);
    if (direct) {
      // The hot path (send_inquiry, get_inquiry, a task's tasks/result): no SDK server or transport
      // is built or kept.
      // With Node's response at hand the frames go straight to it; either way the stream hears the
      // caller leave (Node's 'close', or the web stream's cancel) and ends the wait.
      return serveDirectCall(callContext(claims, tokenKey), direct, keepAlive, outgoing);
    }
    const server = createMcpServer({
      ...deps,
      claims,
      tokenKey,
      descriptions: descriptionsFor(new URL(c.req.url).searchParams),
    });
    // Our heartbeats already keep a progress-tracked stream busy; the SDK's keep-alive comment
    // frames would only add a timer and writes per held call. Without a progress token they stay.
    const heartbeats = asksForProgress(body) && deps.heartbeatMs <= KEEP_ALIVE_MS;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      ...(heartbeats ? { keepAliveMs: 0 } : {}),
    });
    await server.connect(transport);
    // A dropped connection closes the transport, which releases the held call (the inquiry stays open).
    const release = () => void server.close().catch(() => undefined);
    // The socket closing (dropped or done) frees the server; release is idempotent.
    outgoing?.once('close', release);
    releaseAfterResponses(transport, body, release);
    return transport.handleRequest(c.req.raw, {
      parsedBody: body,
      authInfo: { token: tokenKey, clientId: claims.sub, scopes: [claims.role] },
    });
  });
  return app;
}

/**
 * What a tool call needs from the node and the caller. A held call keeps its `CallContext` alive,
 * so it is one object literal with every member named: a spread (of the route's ~20 deps, or of
 * these plus the caller's) gives each call's object a hidden class of its own in optimized code
 * (about 0.5 KB per held call; bench/results/HISTORY.md), while a literal shares one for every call.
 */
function callContextOf(deps: McpRouteDeps): (claims: TokenClaims, tokenKey: string) => CallContext {
  const { service, store, heldCalls, clock, heartbeatMs, maxWaitMs, draining, storeReady } = deps;
  const { tasks, maxAnswerWindowMs, retentionMs } = deps;
  return (claims, tokenKey) => ({
    service,
    store,
    heldCalls,
    clock,
    claims,
    tokenKey,
    heartbeatMs,
    maxWaitMs,
    draining,
    storeReady,
    tasks,
    maxAnswerWindowMs,
    retentionMs,
  });
}

interface RequestLike {
  method?: unknown;
  id?: unknown;
  params?: { _meta?: { progressToken?: unknown } };
}

/** JSON-RPC requests (not notifications or responses) in a POST body. */
function requestsIn(body: unknown): RequestLike[] {
  const messages = (Array.isArray(body) ? body : [body]) as (RequestLike | null)[];
  return messages.filter(
    (m): m is RequestLike => typeof m?.method === 'string' && m.id !== undefined && m.id !== null,
  );
}

/** True when every JSON-RPC request in the body carries a progress token (so it gets heartbeats). */
function asksForProgress(body: unknown): boolean {
  const requests = requestsIn(body);
  return requests.length > 0 && requests.every((m) => m.params?._meta?.progressToken !== undefined);
}

/**
 * Frees the per-request server as soon as every request in the body has its response written, so a
 * finished call holds nothing (no extra stream stage per call, which a held call would also pay for).
 */
function releaseAfterResponses(
  transport: WebStandardStreamableHTTPServerTransport,
  body: unknown,
  release: () => void,
): void {
  let open = requestsIn(body).length;
  if (open === 0) {
    setImmediate(release);
    return;
  }
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    if (('result' in message || 'error' in message) && --open === 0) setImmediate(release);
  };
}

async function cancelHeldCall(
  deps: McpRouteDeps,
  claims: TokenClaims,
  tokenKey: string,
  requestId: string | number,
): Promise<void> {
  const key = HeldCalls.key(tokenKey, requestId);
  const ambiguous = (calls: number) =>
    deps.logger.warn(
      { requestId, calls },
      'ambiguous cancel: more than one held call has this token and request id; none cancelled (give each agent its own token)',
    );
  try {
    // A call held here answers for itself (a task's `tasks/result` cancels nothing); otherwise the
    // store knows the calls other nodes hold. Two agents on one token may reuse an id: a cancel that
    // cannot name one call cancels none, rather than another agent's question.
    const held = deps.heldCalls.get(key);
    if (held.length > 1) return ambiguous(held.length);
    const [call] = held;
    if (call && !call.cancelsInquiry) return;
    const remembered = await deps.store.recallCall(key).catch((error: unknown) => {
      if (!call) throw error;
      return null; // the store is away: the call held here is the one the cancel names
    });
    // The store names the latest call remembered with this key: another node holds a later one.
    if (call && remembered !== null && remembered !== call.inquiryId) return ambiguous(2);
    const inquiryId = call?.inquiryId ?? remembered;
    if (!inquiryId) return;
    await deps.service.settle(inquiryId, claims.sub, { type: 'cancel' });
  } catch (error) {
    deps.logger.warn({ err: error, requestId }, 'cancel failed');
  }
}
