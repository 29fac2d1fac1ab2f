import { z } from 'zod';

/** The channels that reach a person with no page open. */
export const DeliveryChannelSchema = z.enum(['webhook', 'email', 'push', 'slack']);
export type DeliveryChannel = z.infer<typeof DeliveryChannelSchema>;

/**
 * One message sent for an inquiry on one channel and what became of each attempt: a webhook POST, a
 * mail handed to the SMTP server, a push to a push service, a Slack message posted or updated. `GET /api/webhooks/deliveries` and
 * `GET /api/inquiries/:id/channels` (ops) list them.
 */
export const DeliverySchema = z.object({
  /** The message id: for a webhook its `webhook-id`, the same on every attempt. */
  id: z.string(),
  channel: DeliveryChannelSchema,
  event: z.string(),
  /** Where it went: the webhook URL, `mailto:<address>`, the push service's origin, or `slack:<channel id>`. */
  url: z.string(),
  inquiryId: z.string(),
  userId: z.string(),
  createdAt: z.number(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.array(
    z.object({ at: z.number(), status: z.number().optional(), error: z.string().optional() }),
  ),
  nextAttemptAt: z.number().optional(),
});
export type Delivery = z.infer<typeof DeliverySchema>;

/** How many device deliveries are kept per inquiry (the newest). */
export const MAX_DEVICE_DELIVERIES = 50;

/**
 * One inquiry handed to one live device socket (the ops timeline): `new` when it was
 * pushed as it was asked, `sync` when a (re)connecting device got it in its pending list. Recorded by
 * the node the socket is on; `GET /api/inquiries/:id/channels` (ops) lists them as `devices`.
 */
export const DeviceDeliverySchema = z.object({
  inquiryId: z.string(),
  deviceName: z.string(),
  deviceId: z.string(),
  /** The Socket.IO socket id (one per connection). */
  socketId: z.string(),
  /** The device token's id, when it has one. */
  jti: z.string().optional(),
  via: z.literal('socket'),
  event: z.enum(['new', 'sync']),
  at: z.number(),
});
export type DeviceDelivery = z.infer<typeof DeviceDeliverySchema>;

/** A batch of device deliveries by inquiry, each group in the order it came (`Map.groupBy` needs Node 21). */
export function deliveriesByInquiry(entries: readonly DeviceDelivery[]): Map<string, DeviceDelivery[]> {
  const groups = new Map<string, DeviceDelivery[]>();
  for (const entry of entries) {
    const group = groups.get(entry.inquiryId);
    if (group) group.push(entry);
    else groups.set(entry.inquiryId, [entry]);
  }
  return groups;
}
