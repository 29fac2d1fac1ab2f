import type { TokenService } from '@hitl/auth';
import { type AuthVariables, errorResponse, rateLimit, requireRole } from '@hitl/mcp-http';
import {
  describeDepthProblem,
  describeZodError,
  jsonDepthProblem,
  type StandingApprovalView,
  StandingUseBodySchema,
} from '@hitl/protocol';
import type { StandingApproval, StandingStore } from '@hitl/store';
import { Hono } from 'hono';
import type { Clock } from '../core/ports.js';
import type { RateLimiter } from '../core/rate-limit.js';

export interface StandingRouteDeps {
  standing: StandingStore;
  tokens: TokenService;
  limiter: RateLimiter;
  clock: Clock;
}

type Env = { Variables: AuthVariables };

const view = (approval: StandingApproval): StandingApprovalView => ({ ...approval });

/**
 * `/api/approvals/standing`: the approval proxy asks before each gated call whether a standing
 * approval covers it (`POST .../use`, agent token: 200 `{id}` counted, or 404); people list the ones
 * covering them or made by them (ops: all) and end one at once (`DELETE .../:id`; another's is 404).
 */
export function standingRoutes(deps: StandingRouteDeps): Hono<Env> {
  const app = new Hono<Env>();
  const agents = requireRole(deps.tokens, ['agent']);
  const people = requireRole(deps.tokens, ['device', 'ops', 'agent']);
  const enders = requireRole(deps.tokens, ['device', 'ops']);
  const limited = rateLimit(deps.limiter);

  app.post('/approvals/standing/use', agents, limited, async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return errorResponse(c, 'invalid_input', 'body must be JSON: {"server", "tool", "arguments"}');
    }
    const tooDeep = jsonDepthProblem(body);
    if (tooDeep) return errorResponse(c, 'invalid_input', describeDepthProblem(tooDeep));
    const parsed = StandingUseBodySchema.safeParse(body);
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    const used = await deps.standing.use({ userId: c.get('claims').sub, ...parsed.data }, deps.clock.now());
    if (!used) return errorResponse(c, 'not_found', 'no standing approval covers this call');
    return c.json({ id: used.id, uses: used.uses, until: used.until });
  });

  app.get('/approvals/standing', people, async (c) => {
    const claims = c.get('claims');
    const filter = claims.role === 'ops' ? ({ all: true } as const) : { userId: claims.sub };
    const items = (await deps.standing.list(filter, deps.clock.now())).map(view);
    return c.json({ items, nextCursor: null });
  });

  app.delete('/approvals/standing/:id', enders, limited, async (c) => {
    const claims = c.get('claims');
    const now = deps.clock.now();
    const id = c.req.param('id');
    const found = await deps.standing.get(id, now);
    const mine =
      found && (claims.role === 'ops' || found.userId === claims.sub || found.createdBy === claims.sub);
    // Another person's standing approval is not found, like another person's inquiry.
    if (!mine) return errorResponse(c, 'not_found', 'no such standing approval');
    const ended = await deps.standing.end(id, now);
    if (!ended) return errorResponse(c, 'not_found', 'no such standing approval');
    return c.json({ ended: view(ended) });
  });

  return app;
}
