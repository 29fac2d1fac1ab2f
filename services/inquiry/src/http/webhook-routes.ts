import type { TokenService } from '@hitl/auth';
import { describeZodError } from '@hitl/protocol';
import { Hono } from 'hono';
import { z } from 'zod';
import type { DeliveryLog } from '../notify/delivery-log.js';
import { type AuthVariables, requireRole } from './auth.js';
import { errorResponse } from './errors.js';

export interface WebhookRouteDeps {
  tokens: TokenService;
  deliveries: DeliveryLog;
}

const DeliveriesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
  inquiryId: z.string().min(1).max(100).optional(),
});

/**
 * `GET /api/webhooks/deliveries` (ops): every webhook message, newest first, with its attempts.
 * `GET /api/inquiries/:id/channels` (ops): what every channel (push, mail, webhooks) did for one inquiry.
 */
export function webhookRoutes(deps: WebhookRouteDeps): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.get('/webhooks/deliveries', requireRole(deps.tokens, ['ops']), async (c) => {
    const parsed = DeliveriesQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    return c.json(await deps.deliveries.list({ ...parsed.data, channel: 'webhook' }));
  });
  app.get('/inquiries/:id/channels', requireRole(deps.tokens, ['ops']), async (c) => {
    const page = await deps.deliveries.list({ inquiryId: c.req.param('id'), limit: 200 });
    return c.json({ items: page.items });
  });
  return app;
}
