import type { TokenService } from '@hitl/auth';
import { type AuthVariables, errorResponse, rateLimit, requireRole } from '@hitl/mcp-http';
import { describeZodError, RevocationBodySchema } from '@hitl/protocol';
import type { RevocationStore } from '@hitl/store';
import { Hono } from 'hono';
import type { Clock } from '../core/ports.js';
import type { RateLimiter } from '../core/rate-limit.js';

export interface RevocationRouteDeps {
  tokens: TokenService;
  limiter: RateLimiter;
  clock: Clock;
  revocations: RevocationStore;
}

/**
 * `POST /api/revocations` (ops): how `hitl token revoke --url` reaches a node's store, the only way
 * in embedded mode where the store lives in the node's memory.
 */
export function revocationRoutes(deps: RevocationRouteDeps): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();
  const ops = requireRole(deps.tokens, ['ops']);
  app.post('/revocations', ops, rateLimit(deps.limiter), async (c) => {
    const body: unknown = await c.req.json().catch(() => undefined);
    const parsed = RevocationBodySchema.safeParse(body);
    if (!parsed.success) {
      const problem = body === undefined ? 'body must be JSON' : describeZodError(parsed.error);
      return errorResponse(c, 'invalid_input', `${problem}: expected {"jti": ...} or {"user": ...}`);
    }
    if ('jti' in parsed.data) {
      await deps.revocations.revokeToken(parsed.data.jti);
      return c.json({ revoked: { jti: parsed.data.jti } });
    }
    const issuedUpTo = Math.floor(deps.clock.now() / 1000);
    await deps.revocations.revokeUser(parsed.data.user, issuedUpTo);
    return c.json({ revoked: { user: parsed.data.user, issuedUpTo } });
  });
  return app;
}
