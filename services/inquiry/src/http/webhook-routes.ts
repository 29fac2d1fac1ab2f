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

/** `GET /api/webhooks/deliveries` (ops): every webhook message, newest first, with its attempts. */
export function webhookRoutes(deps: WebhookRouteDeps): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.get('/webhooks/deliveries', requireRole(deps.tokens, ['ops']), async (c) => {
    const parsed = DeliveriesQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    return c.json(await deps.deliveries.list(parsed.data));
  });
  return app;
}
