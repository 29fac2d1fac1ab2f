import { ECDH } from 'node:crypto';
import type { TokenService } from '@hitl/auth';
import { type AuthVariables, errorResponse, rateLimit, requireRole } from '@hitl/mcp-http';
import { describeZodError, PUSH_LIMITS, PushSubscriptionBodySchema } from '@hitl/protocol';
import type { PushSubscriptionStore } from '@hitl/store';
import { Hono } from 'hono';
import type { Clock } from '../core/ports.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { endpointProblem } from '../push/push-endpoint.js';

export interface PushRouteDeps {
  tokens: TokenService;
  limiter: RateLimiter;
  clock: Clock;
  push: {
    subscriptions: PushSubscriptionStore;
    /** The VAPID public key browsers subscribe with (base64url). */
    publicKey: string;
    /** `HITL_PUSH_ALLOW_HTTP_HOSTS`: hosts whose endpoints may be `http:`. */
    allowHttpHosts: readonly string[];
  };
}

/**
 * `/api/push`: the VAPID key, and a device's push subscriptions for its own user.
 * `POST` answers 201 `{id}` also when it updated the user's subscription at the same endpoint
 * (same id); past 20 per user the least recently saved one goes.
 */
export function pushRoutes(deps: PushRouteDeps): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();
  const readers = requireRole(deps.tokens, ['device', 'ops']);
  const devices = requireRole(deps.tokens, ['device']);
  const limited = rateLimit(deps.limiter);
  const { subscriptions, publicKey, allowHttpHosts } = deps.push;

  app.get('/push/key', readers, (c) => c.json({ publicKey }));

  app.get('/push/subscriptions', devices, async (c) => {
    const records = await subscriptions.list(c.get('claims').sub);
    const items = records.map(({ id, endpoint, deviceName, createdAt, updatedAt }) => ({
      id,
      endpoint,
      ...(deviceName !== undefined ? { deviceName } : {}),
      createdAt,
      updatedAt,
    }));
    return c.json({ items });
  });

  app.post('/push/subscriptions', devices, limited, async (c) => {
    const body: unknown = await c.req.json().catch(() => undefined);
    if (body === undefined) {
      return errorResponse(
        c,
        'invalid_input',
        'body must be JSON: PushSubscription.toJSON() with an optional deviceName',
      );
    }
    const parsed = PushSubscriptionBodySchema.safeParse(body);
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    const problem =
      endpointProblem(parsed.data.endpoint, allowHttpHosts) ?? keyProblem(parsed.data.keys.p256dh);
    if (problem) return errorResponse(c, 'invalid_input', problem);
    const claims = c.get('claims');
    const deviceName = parsed.data.deviceName ?? c.req.header('x-device-name') ?? claims.name;
    const saved = await subscriptions.save(
      {
        userId: claims.sub,
        endpoint: parsed.data.endpoint,
        keys: parsed.data.keys,
        ...(deviceName ? { deviceName: deviceName.slice(0, 200) } : {}),
        // Bound to the token that subscribed: revoking it stops the pushes to this endpoint.
        token: {
          ...(claims.jti ? { jti: claims.jti } : {}),
          ...(claims.iat !== undefined ? { iat: claims.iat } : {}),
        },
        at: deps.clock.now(),
      },
      PUSH_LIMITS.subscriptionsPerUser,
    );
    return c.json({ id: saved.id }, 201);
  });

  app.delete('/push/subscriptions/:id', devices, limited, async (c) => {
    const removed = await subscriptions.remove(c.get('claims').sub, c.req.param('id'));
    // Another user's subscription is not found, like another user's inquiry.
    return removed ? c.body(null, 204) : errorResponse(c, 'not_found', 'no such push subscription');
  });

  return app;
}

/** A `p256dh` that is not a point on P-256 could never be encrypted for: refused when subscribing. */
function keyProblem(p256dh: string): string | undefined {
  try {
    ECDH.convertKey(Buffer.from(p256dh, 'base64url'), 'prime256v1');
    return undefined;
  } catch {
    return 'keys.p256dh: not a P-256 public key';
  }
}
