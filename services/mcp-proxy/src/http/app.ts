import { type HostPolicy, hostOriginProblem, type TokenService } from '@hitl/auth';
import { type AuthVariables, jsonRpcError, jsonRpcErrorOf, jsonRpcRefusal, requireRole } from '@hitl/inquiry';
import { describeDepthProblem, ERROR_WIRE, HitlError, JSON_RPC, jsonDepthProblem } from '@hitl/protocol';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { CallDeps } from '../mcp/call-deps.js';
import { createProxyServer } from '../mcp/proxy-server.js';
import { CANCELLED, cancelledRequestIds, HeldCalls, logAmbiguousCancel } from './held-calls.js';

export interface ProxyAppDeps {
  calls: CallDeps;
  tokens: TokenService;
  hostPolicy: HostPolicy;
  heldCalls: HeldCalls;
  version: string;
  /** Largest accepted request body, bytes. */
  maxBodyBytes: number;
}

type Env = { Variables: AuthVariables };

/**
 * The proxy's HTTP surface: `POST /mcp` (stateless Streamable HTTP, agent tokens), `GET`/`DELETE`
 * `/mcp` 405, and open `/healthz` and `/readyz` (the backend connection is up).
 */
export function createProxyApp(deps: ProxyAppDeps): Hono<Env> {
  const app = new Hono<Env>();
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) =>
    deps.calls.backend.closed()
      ? c.json({ status: 'unavailable', reason: 'the backend connection is closed' }, 503)
      : c.json({ status: 'ready' }),
  );
  app.use('/mcp', async (c, next) => {
    const problem = hostOriginProblem(deps.hostPolicy, c.req.header('host'), c.req.header('origin'));
    return problem ? jsonRpcRefusal(c, 'forbidden', problem) : next();
  });
  app.use(
    '/mcp',
    bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: (c) => jsonRpcRefusal(c, 'payload_too_large', `request body over ${deps.maxBodyBytes} bytes`),
    }),
  );
  const notAllowed = (c: Context) => {
    c.header('Allow', 'POST');
    return jsonRpcRefusal(c, 'method_not_allowed', 'Method not allowed: this proxy is stateless; use POST');
  };
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
  app.post('/mcp', requireRole(deps.tokens, ['agent']), async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return jsonRpcError(c, 400, JSON_RPC.parseError, 'Parse error: the body is not valid JSON');
    }
    // Before anything walks it: canonical JSON and the SDK's validators recurse.
    const tooDeep = jsonDepthProblem(body);
    if (tooDeep) {
      const field = describeDepthProblem(tooDeep);
      deps.calls.logger.warn({ field }, 'refused a JSON body nested deeper than 64 levels');
      return jsonRpcRefusal(c, 'invalid_input', `Invalid params: ${field}`);
    }
    const tokenKey = c.get('tokenKey');
    for (const id of cancelledRequestIds(body)) {
      const key = HeldCalls.key(tokenKey, id);
      const outcome = deps.heldCalls.cancel(key, CANCELLED);
      if (outcome === 'ambiguous') logAmbiguousCancel(deps.calls.logger, id);
      // Not running here: the call may be on another proxy node; every node hears the relay.
      if (outcome === 'none') {
        deps.calls.store.publishCancel(key).catch((error: unknown) => {
          deps.calls.logger.warn({ err: error }, 'cancel not relayed to the other proxy nodes');
        });
      }
    }
    const server = createProxyServer(deps.calls, {
      userId: c.get('claims').sub,
      version: deps.version,
      withSignal: (extra, run) => deps.heldCalls.run(HeldCalls.key(tokenKey, extra.requestId), run),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    // Closing the per-request server never cancels the call's work (that listens to held calls only).
    const release = () => void server.close().catch(() => undefined);
    c.req.raw.signal.addEventListener('abort', release, { once: true });
    const response = await transport.handleRequest(c.req.raw, { parsedBody: body });
    return closeWhenDone(response, release);
  });
  app.notFound((c) =>
    c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}` } }, 404),
  );
  app.onError((error, c) => {
    // The token check throws its 401/403; it reads as the node's `/mcp` answers it.
    if (error instanceof HitlError) return jsonRpcErrorOf(c, error);
    deps.calls.logger.error({ err: error, path: c.req.path }, 'request failed');
    return jsonRpcError(c, ERROR_WIRE.internal.http, ERROR_WIRE.internal.jsonRpc, 'internal error');
  });
  return app;
}

/** Frees the per-request server once its response has been fully sent. */
function closeWhenDone(response: Response, release: () => void): Response {
  if (!response.body) {
    release();
    return response;
  }
  const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: release }));
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
