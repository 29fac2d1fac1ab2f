import type { TokenService } from '@hitl/auth';
import { type AuthVariables, errorResponse, requireRole } from '@hitl/mcp-http';
import { AuditPostSchema, type AuditRecord, AuditRecordsQuerySchema, describeZodError } from '@hitl/protocol';
import { Hono } from 'hono';
import type { Auditor } from '../audit/auditor.js';

export interface AuditRouteDeps {
  auditor: Auditor;
  tokens: TokenService;
}

type Env = { Variables: AuthVariables };

/**
 * The audit chain for ops (every other role gets 403): `GET /audit/checkpoint` (the head now, signed),
 * `GET /audit/records?after=<seq>&limit=` (entries after `after`, oldest first; read fresh, never
 * cached) and `POST /audit/records` (an embedded approval proxy's `proxy:` records).
 */
export function auditRoutes(deps: AuditRouteDeps): Hono<Env> {
  const app = new Hono<Env>();
  const ops = requireRole(deps.tokens, ['ops']);

  app.get('/audit/checkpoint', ops, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.auditor.checkpoint());
  });

  app.get('/audit/records', ops, async (c) => {
    const parsed = AuditRecordsQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    c.header('Cache-Control', 'no-store');
    return c.json(await deps.auditor.page(parsed.data.after, parsed.data.limit));
  });

  // An embedded approval proxy's grants and runs (it has no chain of its own): appended once by id.
  app.post('/audit/records', ops, async (c) => {
    const parsed = AuditPostSchema.safeParse(await c.req.json().catch(() => undefined));
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    const added = await deps.auditor.appendAudit(parsed.data.records as AuditRecord[]);
    return c.json({ appended: added.length });
  });

  return app;
}
