import type { ServerResponse } from 'node:http';
import type { HostPolicy, TokenService } from '@hitl/auth';
import type { TokenClaims } from '@hitl/protocol';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type Context, Hono } from 'hono';
import { limitBody } from './body-limit.js';
import { guardHost, type RequestBudget, requireRole } from './doors.js';
import { jsonRpcErrors, type KnownError } from './error-handler.js';
import { type Cancellation, cancellations } from './held-calls.js';
import { jsonRpcRefusal } from './http-errors.js';
import type { LogSink } from './log-sink.js';
import { type McpBodyVariables, readMcpBody } from './mcp-body.js';
import { unsupportedVersion } from './protocol-version.js';
import { type EndpointSession, type EndpointSessions, sessionIdOf } from './sessions.js';

/** One admitted `POST /mcp`: its parsed body, the caller, and Node's response when at hand. */
export interface McpRequest<S extends EndpointSession = EndpointSession> {
  c: Context;
  body: unknown;
  claims: TokenClaims;
  /** The bearer token's fingerprint: the key of the caller's held calls and budget. */
  tokenKey: string;
  outgoing: ServerResponse | undefined;
  /** The live session the request names, when the service keeps sessions and it names one. */
  session?: S;
}

/** What a per-request SDK server offers the endpoint (the SDK's low-level `Server` is one). */
export interface PerRequestServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

/** The endpoint's parts: the doors, and what the service behind it does with an admitted request. */
export interface McpEndpointDeps<S extends EndpointSession = EndpointSession> {
  tokens: TokenService;
  hostPolicy: HostPolicy;
  logger: LogSink;
  /** Largest accepted request body, bytes (413 above). */
  maxBodyBytes: number;
  /** Says who is stateless in the 405 ("server", "proxy"). */
  who: string;
  /** Spends one point per JSON-RPC message of a body (429 over it); none: no budget. */
  limiter?: RequestBudget;
  /** What a thrown error other than a `HitlError` means (e.g. the store being away); default: internal. */
  known?: KnownError;
  /** Each `notifications/cancelled` of an admitted body, before the rest of it is served. */
  cancel(request: McpRequest<S>, cancellation: Cancellation): void;
  /** The direct path: a response of its own for a body it fully understands, else undefined (the SDK's way). */
  direct?(request: McpRequest<S>): Response | Promise<Response> | undefined;
  /**
   * A fresh SDK server for this one request (stateless mode: never shared), and the transport it
   * will serve (for a service that writes on the request's stream itself).
   */
  server(request: McpRequest<S>, transport: WebStandardStreamableHTTPServerTransport): PerRequestServer;
  /** Sessions, for a service that keeps them (sessions.ts); absent: stateless, `DELETE` 405. */
  sessions?: EndpointSessions<S>;
  /** The SDK transport's SSE keep-alive for this body (undefined: the SDK's default; 0: none). */
  keepAliveMs?(body: unknown): number | undefined;
}

type Env = { Variables: McpBodyVariables };

/**
 * `/mcp` as stateless Streamable HTTP, the node's and the proxy's: host guard and body cap, then
 * `POST` behind an agent token, its body read once (budget, JSON, depth), cancels relayed, the
 * direct path when the service has one, else a fresh SDK server and transport for the request,
 * freed as soon as every response in the body is written (or the caller leaves). `GET` is 405 (no
 * standalone stream), and so is `DELETE` unless the service keeps sessions (`sessions`, for clients
 * that earn one; every other client stays stateless). Every refusal before the MCP layer is thrown
 * and rendered as JSON-RPC by this sub-app's own error handler. Mount it at `/mcp`.
 */
export function mcpEndpoint<S extends EndpointSession>(deps: McpEndpointDeps<S>): Hono<Env> {
  const app = new Hono<Env>();
  app.onError(jsonRpcErrors(deps.logger, deps.known));
  app.use('/', guardHost(deps.hostPolicy), limitBody(deps.maxBodyBytes));
  const methodNotAllowed = (c: Context) => {
    c.header('Allow', 'POST');
    return jsonRpcRefusal(
      c,
      'method_not_allowed',
      `Method not allowed: this ${deps.who} is stateless; use POST`,
    );
  };
  app.get('/', methodNotAllowed);
  const { sessions } = deps;
  if (!sessions) app.delete('/', methodNotAllowed);
  else {
    // DELETE with a session ends it; without one it is 405 as for a stateless endpoint.
    app.delete(
      '/',
      (c, next) => (sessionIdOf(c) === undefined ? methodNotAllowed(c) : next()),
      requireRole(deps.tokens, ['agent']),
      async (c) => sessions.end(c, (await sessions.admit(c, c.get('claims'))) as S),
    );
  }

  app.post('/', requireRole(deps.tokens, ['agent']), readMcpBody(deps.limiter, deps.logger), async (c) => {
    const body = c.get('mcpBody');
    // A request naming a session is admitted first (404); one naming none does not wait here.
    const admitting = sessions?.admit(c, c.get('claims'));
    const session = admitting && (await admitting);
    const refusal = unsupportedVersion(c, body);
    if (refusal) return refusal;
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    const request: McpRequest<S> = {
      c,
      body,
      claims: c.get('claims'),
      tokenKey: c.get('tokenKey'),
      outgoing,
    };
    if (session) request.session = session;
    for (const cancellation of cancellations(body)) deps.cancel(request, cancellation);
    if (sessions?.takes(body, session)) return sessions.take(c, body, request.claims, session);
    const direct = deps.direct?.(request);
    if (direct) return direct;
    const keepAliveMs = deps.keepAliveMs?.(body);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
    });
    const server = deps.server(request, transport);
    // An initialize may open a session: stored before the response leaves (the next POST may reach another node).
    const opened = await sessions?.open(body, request.claims);
    await server.connect(transport);
    // A dropped connection closes the transport, which releases what the request held; the work a
    // held call does listens to its own signal. release is idempotent.
    const release = () => void server.close().catch(() => undefined);
    if (outgoing) outgoing.once('close', release);
    else c.req.raw.signal.addEventListener('abort', release, { once: true });
    releaseAfterResponses(transport, body, release);
    const { claims, tokenKey } = request;
    const response = await transport.handleRequest(c.req.raw, {
      parsedBody: body,
      authInfo: { token: tokenKey, clientId: claims.sub, scopes: [claims.role] },
    });
    if (opened) response.headers.set('Mcp-Session-Id', opened.sessionId);
    return response;
  });
  return app;
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
export function asksForProgress(body: unknown): boolean {
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
