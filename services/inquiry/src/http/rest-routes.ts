import type { TokenService } from '@hitl/auth';
import { type AuthVariables, errorResponse, rateLimit, requireRole } from '@hitl/mcp-http';
import {
  AnswerBodySchema,
  describeDepthProblem,
  describeZodError,
  HitlError,
  jsonDepthProblem,
  ListInquiriesQuerySchema,
  RefuseBodySchema,
} from '@hitl/protocol';
import type { InquiryStore } from '@hitl/store';
import { type Context, Hono } from 'hono';
import type { InquiryService } from '../core/inquiry-service.js';
import type { DeviceRef, Ending } from '../core/outcomes.js';
import type { RateLimiter } from '../core/rate-limit.js';

export interface RestDeps {
  service: InquiryService;
  store: InquiryStore;
  tokens: TokenService;
  limiter: RateLimiter;
}

type Env = { Variables: AuthVariables };
type Ctx = Context<Env>;

/** A REST caller acts as a device named by `X-Device-Name` (or its token's name). */
function restDevice(c: Ctx): DeviceRef {
  return { deviceId: 'rest', deviceName: c.req.header('x-device-name') ?? c.get('claims').name ?? 'REST' };
}

/** `/api/inquiries`: devices see and settle their own user's inquiries; ops read everyone's. */
export function restRoutes(deps: RestDeps): Hono<Env> {
  const app = new Hono<Env>();
  const readers = requireRole(deps.tokens, ['device', 'ops']);
  const writers = requireRole(deps.tokens, ['device']);
  const limited = rateLimit(deps.limiter);

  app.get('/inquiries', readers, async (c) => {
    const parsed = ListInquiriesQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    const claims = c.get('claims');
    // A device only ever lists its own user's inquiries, whatever `user` says.
    const userId = claims.role === 'ops' ? parsed.data.user : claims.sub;
    const page = await deps.store.list({
      userId,
      status: parsed.data.status,
      limit: parsed.data.limit,
      cursor: parsed.data.cursor,
    });
    return c.json(page);
  });

  app.get('/inquiries/:id', readers, async (c) => {
    const claims = c.get('claims');
    const inquiry = await deps.service.find(
      c.req.param('id'),
      claims.role === 'ops' ? undefined : claims.sub,
    );
    return inquiry ? c.json(inquiry) : errorResponse(c, 'not_found', `no inquiry ${c.req.param('id')}`);
  });

  app.post('/inquiries/:id/answer', writers, limited, async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return errorResponse(c, 'invalid_input', 'body must be JSON: {"response": ...}');
    }
    const tooDeep = jsonDepthProblem(body);
    if (tooDeep) return errorResponse(c, 'invalid_input', describeDepthProblem(tooDeep));
    const parsed = AnswerBodySchema.safeParse(body);
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    return settle(c, { type: 'answer', ...parsed.data, device: restDevice(c) });
  });

  app.post('/inquiries/:id/refuse', writers, limited, async (c) => {
    // No body, or `{reason}`.
    const text = await c.req.text();
    let body: unknown = {};
    try {
      if (text.trim() !== '') body = JSON.parse(text);
    } catch {
      return errorResponse(c, 'invalid_input', 'body must be empty or JSON: {"reason": ...}');
    }
    const parsed = RefuseBodySchema.safeParse(body);
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    return settle(c, { type: 'refusal', ...parsed.data, device: restDevice(c) });
  });

  /**
   * 200 `{status}` for the winner, 409 `{status, resolvedBy}` for everyone after; on a quorum approval
   * 200 `{status: "pending", votes}` for a vote that did not decide it, 409 `already_voted` for a second.
   */
  async function settle(c: Ctx, ending: Ending): Promise<Response> {
    try {
      const result = await deps.service.settle(c.req.param('id') ?? '', c.get('claims').sub, ending);
      if (result.kind === 'not_found') return errorResponse(c, 'not_found', 'no such inquiry');
      const { status, resolvedBy, votes } = result.inquiry;
      if (result.kind === 'won') return c.json({ status });
      // A quorum approval: the vote is kept and it waits for more.
      if (result.kind === 'counted') return c.json({ status, votes });
      if (result.kind === 'already_voted') {
        const error = { code: 'already_voted', message: 'you have voted on this approval already' };
        return c.json({ status, votes, error }, 409);
      }
      const error = { code: 'already_resolved', message: `this inquiry is already ${status}` };
      return c.json({ status, resolvedBy, error }, 409);
    } catch (error) {
      if (error instanceof HitlError) return errorResponse(c, error.code, error.message);
      throw error;
    }
  }

  return app;
}
