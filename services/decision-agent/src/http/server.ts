import type { Server as HttpServer } from 'node:http';
import { type HostPolicy, hostOriginProblem } from '@hitl/auth';
import {
  DECIDE_PATH,
  type Decider,
  DecisionRequestSchema,
  SUGGEST_PATH,
  SuggestRequestSchema,
} from '@hitl/decisions';
import { describeDepthProblem, describeZodError, jsonDepthProblem, LIMITS, listenOn } from '@hitl/protocol';
import { createAdaptorServer } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { type IsRevoked, requireServiceToken } from './service-auth.js';

export interface DecisionAppDeps {
  decider: Decider;
  /** The shared `HITL_SECRET` callers' tokens are signed with. */
  secret: string;
  logger: Logger;
  /** Host / Origin names beyond loopback this service answers to; default: loopback only. */
  hostPolicy?: HostPolicy;
  /** Revoked tokens are refused too (set when `hitl decide` shares the nodes' Redis). */
  isRevoked?: IsRevoked;
}

async function parseBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S> | Response> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return c.json({ error: { code: 'invalid_input', message: 'body must be JSON' } }, 400);
  }
  // Before zod walks it: the context check serialises it, which a deep value would overflow.
  const tooDeep = jsonDepthProblem(body);
  if (tooDeep)
    return c.json({ error: { code: 'invalid_input', message: describeDepthProblem(tooDeep) } }, 400);
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  return c.json({ error: { code: 'invalid_input', message: describeZodError(parsed.error) } }, 400);
}

/**
 * The decision agent's HTTP API (`hitl decide`): `POST /v1/decide` and `POST /v1/suggest` for an
 * ops-role service token, `GET /healthz` open.
 */
export function decisionApp(deps: DecisionAppDeps): Hono {
  const app = new Hono();
  const auth = requireServiceToken(deps.secret, deps.isRevoked);
  const limit = bodyLimit({
    maxSize: LIMITS.bodyBytes,
    onError: (c) =>
      c.json({ error: { code: 'payload_too_large', message: `body over ${LIMITS.bodyBytes} bytes` } }, 413),
  });
  const hostPolicy = deps.hostPolicy ?? { allowedHosts: [], allowedOrigins: [] };
  // The node's DNS-rebinding guard, before the token is even read (health stays open, as on the node).
  app.use('*', async (c, next) => {
    if (c.req.path === '/healthz') return next();
    const problem = hostOriginProblem(hostPolicy, c.req.header('host'), c.req.header('origin'));
    return problem ? c.json({ error: { code: 'forbidden', message: problem } }, 403) : next();
  });
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.post(DECIDE_PATH, auth, limit, async (c) => {
    const request = await parseBody(c, DecisionRequestSchema);
    return request instanceof Response ? request : c.json(await deps.decider.decide(request));
  });
  app.post(SUGGEST_PATH, auth, limit, async (c) => {
    const request = await parseBody(c, SuggestRequestSchema);
    return request instanceof Response ? request : c.json(await deps.decider.suggest(request));
  });
  app.notFound((c) =>
    c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${c.req.path}` } }, 404),
  );
  app.onError((error, c) => {
    deps.logger.error({ err: error, path: c.req.path }, 'decision request failed');
    return c.json({ error: { code: 'internal', message: 'internal error' } }, 500);
  });
  return app;
}

export interface RunningDecisionServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves {@link decisionApp} on `host:port` (port 0: any free port). */
export async function startDecisionServer(
  deps: DecisionAppDeps & { port: number; host: string },
): Promise<RunningDecisionServer> {
  const server = createAdaptorServer({ fetch: decisionApp(deps).fetch }) as HttpServer;
  const { port, url } = await listenOn(server, deps.port, deps.host);
  deps.logger.info({ url }, 'decision agent listening');
  return {
    url,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
