import type { TokenService } from '@hitl/auth';
import { type AuthVariables, errorResponse, rateLimit, requireRole } from '@hitl/mcp-http';
import { HitlError } from '@hitl/protocol';
import type { RevocationStore } from '@hitl/store';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { inquiryLinksEntry } from '../auth/link-revocation.js';
import type { InquiryService } from '../core/inquiry-service.js';
import type { Clock } from '../core/ports.js';
import type { RateLimiter } from '../core/rate-limit.js';

export interface OpsRouteDeps {
  service: InquiryService;
  tokens: TokenService;
  limiter: RateLimiter;
  revocations: RevocationStore;
  clock: Clock;
  logger: Logger;
}

type Env = { Variables: AuthVariables };

/**
 * What only ops may do to an inquiry: `POST /inquiries/:id/cancel` ends a pending
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

  /**
   * `POST /inquiries/:id/links/revoke`: withdraws every answer link of one inquiry (mail, webhook),
   * on every node within a second (the revocation feed), those issued later included; the inquiry
   * itself stays as it is, and its people answer from their devices. Audited: the node's log names
   * the operator. 200 `{revoked: {inquiryId, at}}`; 404 unknown.
   */
  app.post('/inquiries/:id/links/revoke', ops, rateLimit(deps.limiter), async (c) => {
    const claims = c.get('claims');
    const id = c.req.param('id');
    const inquiry = await deps.service.find(id);
    if (!inquiry) return errorResponse(c, 'not_found', `no inquiry ${id}`);
    // The entry outlives every link of the inquiry: none is valid past its service deadline.
    const until = Math.max(inquiry.deadlines.serviceAt, inquiry.deadlines.answerBy ?? 0);
    await deps.revocations.revokeToken(inquiryLinksEntry(id), Math.ceil(until / 1000) + 60);
    const at = deps.clock.now();
    deps.logger.info(
      {
        audit: 'links.revoked',
        inquiryId: id,
        userId: inquiry.userId,
        ops: claims.sub,
        opsName: claims.name,
      },
      'answer links of an inquiry revoked by an operator',
    );
    return c.json({ revoked: { inquiryId: id, at } });
  });

  return app;
}
