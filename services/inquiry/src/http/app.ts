import type { HostPolicy } from '@hitl/auth';
import { errorResponse, guardHost, limitBody } from '@hitl/mcp-http';
import { LIMITS } from '@hitl/protocol';
import type { InquiryStore } from '@hitl/store';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { type McpRouteDeps, mcpRoutes } from '../mcp/mcp-route.js';
import type { NodeMetrics } from '../metrics.js';
import { type AnswerLinkDeps, answerLinkRoutes } from './answer-link-routes.js';
import { type AuditRouteDeps, auditRoutes } from './audit-routes.js';
import { type DecisionRouteDeps, decisionRoutes } from './decision-routes.js';
import { type DeviceRouteDeps, deviceRoutes } from './device-routes.js';
import { noteDeviceUse } from './device-use.js';
import { restErrors } from './error-handlers.js';
import { opsRoutes } from './ops-routes.js';
import { type PasskeyRouteDeps, passkeyRoutes } from './passkey-routes.js';
import { type PushRouteDeps, pushRoutes } from './push-routes.js';
import { type RestDeps, restRoutes } from './rest-routes.js';
import { type RevocationRouteDeps, revocationRoutes } from './revocation-routes.js';
import { type StandingRouteDeps, standingRoutes } from './standing-routes.js';
import { webRoutes } from './web-routes.js';
import { type WebhookRouteDeps, webhookRoutes } from './webhook-routes.js';

export interface AppDeps
  extends RestDeps,
    Omit<AnswerLinkDeps, 'service' | 'limiter'>,
    McpRouteDeps,
    DecisionRouteDeps,
    AuditRouteDeps,
    PasskeyRouteDeps,
    RevocationRouteDeps,
    DeviceRouteDeps,
    PushRouteDeps,
    WebhookRouteDeps,
    StandingRouteDeps {
  store: InquiryStore;
  metrics: NodeMetrics;
  hostPolicy: HostPolicy;
  logger: Logger;
  webRoot?: string;
  /** `/slack` (Slack's interactivity requests), when Slack is configured. */
  slack?: Hono;
}

/** `/api`: host check, body cap, the REST routes, and `{error: {code, message}}` for whatever they throw. */
function apiRoutes(deps: AppDeps): Hono {
  const api = new Hono();
  api.onError(restErrors(deps.logger));
  api.use(
    '*',
    guardHost(deps.hostPolicy),
    limitBody(LIMITS.bodyBytes),
    noteDeviceUse(deps.pairing.sightings),
  );
  api.route('/', restRoutes(deps));
  api.route('/', opsRoutes(deps));
  api.route('/', decisionRoutes(deps));
  api.route('/', auditRoutes(deps));
  api.route('/', passkeyRoutes(deps));
  api.route('/', revocationRoutes(deps));
  api.route('/', deviceRoutes(deps));
  api.route('/', pushRoutes(deps));
  api.route('/', webhookRoutes(deps));
  api.route('/', standingRoutes(deps));
  return api;
}

/**
 * The node's HTTP surface: health and metrics (open, no host check), `/mcp` and `/api` (each with its
 * own checks and error form), and the web app. Every door's middleware throws a HitlError; the
 * sub-app it runs in renders it.
 */
export function createApp(deps: AppDeps): Hono {
  const app = new Hono();

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
  app.route('/api', apiRoutes(deps));
  // Answer links render their own refusals as pages (a person opened them in a browser).
  app.route('/a', answerLinkRoutes(deps));
  if (deps.slack) app.route('/slack', deps.slack);
  // Registered after the routes above, which answer without calling `next`: the web app and unknown paths.
  app.use('*', guardHost(deps.hostPolicy));
  app.notFound((c) => errorResponse(c, 'not_found', `no route ${c.req.method} ${c.req.path}`));
  app.onError(restErrors(deps.logger));
  app.route('/', webRoutes(deps.webRoot));
  return app;
}
