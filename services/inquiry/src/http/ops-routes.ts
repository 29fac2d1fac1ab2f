import type { TokenService } from '@hitl/auth';
import { HitlError } from '@hitl/protocol';
import { Hono } from 'hono';
import type { InquiryService } from '../core/inquiry-service.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { type AuthVariables, rateLimit, requireRole } from './auth.js';
import { errorResponse } from './errors.js';

export interface OpsRouteDeps {
  service: InquiryService;
  tokens: TokenService;
  limiter: RateLimiter;
}

type Env = { Variables: AuthVariables };

/**
 * What only ops may do to an inquiry (DESIGN §6.6): `POST /inquiries/:id/cancel` ends a pending
 * inquiry of any user as `cancelled`, through the same settle as every other ending, so devices get
 * `inquiry:resolved`, the held MCP call returns `cancelled`, and the decision log names the operator.
 * 200 `{status}`; 409 `{status, resolvedBy, error}` when it had already ended; 404 unknown.
 */
export function opsRoutes(deps: OpsRouteDeps): Hono<Env> {
  const app = new Hono<Env>();
  const ops = requireRole(deps.tokens, ['ops']);

  app.post('/inquiries/:id/cancel', ops, rateLimit(deps.limiter), async (c) => {
    const claims = c.get('claims');
    const id = c.req.param('id');
    try {
      const result = await deps.service.settle(id, undefined, {
        type: 'cancel',
        ops: { subject: claims.sub, ...(claims.name ? { name: claims.name } : {}) },
      });
      if (result.kind === 'not_found') return errorResponse(c, 'not_found', `no inquiry ${id}`);
      const { status, resolvedBy } = result.inquiry;
      if (result.kind === 'won') return c.json({ status });
      const error = { code: 'already_resolved', message: `this inquiry is already ${status}` };
      return c.json({ status, resolvedBy, error }, 409);
    } catch (error) {
      if (error instanceof HitlError) return errorResponse(c, error.code, error.message);
      throw error;
    }
  });

  return app;
}
