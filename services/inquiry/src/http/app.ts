import { type HostPolicy, hostOriginProblem } from '@hitl/auth';
import { LIMITS } from '@hitl/protocol';
import type { InquiryStore } from '@hitl/store';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { isStoreOutage, storeUnavailable } from '../core/store-outage.js';
import { type McpRouteDeps, mcpRoutes } from '../mcp/mcp-route.js';
import type { NodeMetrics } from '../metrics.js';
import { limitBody } from './body-limit.js';
import { type DecisionRouteDeps, decisionRoutes } from './decision-routes.js';
import { errorResponse, JSONRPC, jsonRpcError } from './errors.js';
import { type RestDeps, restRoutes } from './rest-routes.js';
import { type RevocationRouteDeps, revocationRoutes } from './revocation-routes.js';
import { webRoutes } from './web-routes.js';

export interface AppDeps extends RestDeps, McpRouteDeps, DecisionRouteDeps, RevocationRouteDeps {
  store: InquiryStore;
  metrics: NodeMetrics;
  hostPolicy: HostPolicy;
  logger: Logger;
  webRoot?: string;
}

const OPEN_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The node's HTTP surface: health and metrics (open), `/mcp`, `/api`, and the web app. */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

  app.use('*', async (c, next) => {
    if (OPEN_PATHS.has(c.req.path)) return next();
    const problem = hostOriginProblem(deps.hostPolicy, c.req.header('host'), c.req.header('origin'));
    if (!problem) return next();
    return c.req.path === '/mcp'
      ? jsonRpcError(c, 403, JSONRPC.serverError, problem, { code: 'forbidden' })
      : errorResponse(c, 'forbidden', problem);
  });
  const overLimit = `request body over ${LIMITS.bodyBytes} bytes`;
  app.use(
    '/mcp',
    limitBody(LIMITS.bodyBytes, (c) =>
      jsonRpcError(c, 413, JSONRPC.invalidRequest, overLimit, { code: 'payload_too_large' }),
    ),
  );
  app.use(
    '/api/*',
    limitBody(LIMITS.bodyBytes, (c) => errorResponse(c, 'payload_too_large', overLimit)),
  );

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await deps.store.ping(1000);
      return deps.draining() ? c.json({ status: 'draining' }, 503) : c.json({ status: 'ready' });
    } catch {
      return c.json({ status: 'unavailable', reason: 'store did not answer PING within 1 s' }, 503);
    }
  });
  app.get('/metrics', async (c) => {
    c.header('Content-Type', deps.metrics.registry.contentType);
    return c.body(await deps.metrics.registry.metrics());
  });

  app.route('/mcp', mcpRoutes(deps));
  app.route('/api', restRoutes(deps));
  app.route('/api', decisionRoutes(deps));
  app.route('/api', revocationRoutes(deps));
  app.notFound((c) => errorResponse(c, 'not_found', `no route ${c.req.method} ${c.req.path}`));
  app.onError((error, c) => {
    if (isStoreOutage(error)) {
      const { message, retryAfterMs } = storeUnavailable();
      c.header('Retry-After', String(Math.ceil((retryAfterMs ?? 1000) / 1000)));
      return c.req.path === '/mcp'
        ? jsonRpcError(c, 503, JSONRPC.serverError, message, { code: 'unavailable', retryAfterMs })
        : errorResponse(c, 'unavailable', message, retryAfterMs);
    }
    deps.logger.error({ err: error, path: c.req.path }, 'request failed');
    return c.req.path === '/mcp'
      ? jsonRpcError(c, 500, -32603, 'internal error')
      : errorResponse(c, 'internal', 'internal error');
  });
  app.route('/', webRoutes(deps.webRoot));
  return app;
}
