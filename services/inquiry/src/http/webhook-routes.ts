import type { TokenService } from '@hitl/auth';
import { type AuthVariables, errorResponse, requireRole } from '@hitl/mcp-http';
import { describeZodError } from '@hitl/protocol';
import type { DeliveryLog, DeviceDeliveryLog } from '@hitl/store';
import { Hono } from 'hono';
import { z } from 'zod';

export interface WebhookRouteDeps {
  tokens: TokenService;
  deliveries: DeliveryLog;
  /** Which device sockets got each inquiry; absent: `devices` is an empty list. */
  deviceDeliveries?: DeviceDeliveryLog;
}

const DeliveriesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
  inquiryId: z.string().min(1).max(100).optional(),
});

/**
 * `GET /api/webhooks/deliveries` (ops): every webhook message, newest first, with its attempts.
 * `GET /api/inquiries/:id/channels` (ops): what every channel (push, mail, webhooks) did for one inquiry
 * (`items`), and which device sockets it was handed to, newest first (`devices`, at most
 * `MAX_DEVICE_DELIVERIES`).
 */
export function webhookRoutes(deps: WebhookRouteDeps): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();
  app.get('/webhooks/deliveries', requireRole(deps.tokens, ['ops']), async (c) => {
    const parsed = DeliveriesQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    return c.json(await deps.deliveries.list({ ...parsed.data, channel: 'webhook' }));
  });
  app.get('/inquiries/:id/channels', requireRole(deps.tokens, ['ops']), async (c) => {
    const inquiryId = c.req.param('id');
    const [page, devices] = await Promise.all([
      deps.deliveries.list({ inquiryId, limit: 200 }),
      deps.deviceDeliveries?.list(inquiryId) ?? [],
    ]);
    return c.json({ items: page.items, devices });
  });
  return app;
}
