import type { TokenService } from '@hitl/auth';
import { type AuthVariables, errorResponse, rateLimit, requireRole } from '@hitl/mcp-http';
import { describeZodError, PasskeyOptionsBodySchema, WebAuthnRegistrationSchema } from '@hitl/protocol';
import { type Context, Hono } from 'hono';
import type { z } from 'zod';
import type { InquiryService } from '../core/inquiry-service.js';
import type { RateLimiter } from '../core/rate-limit.js';
import type { PasskeyService } from '../passkeys/passkey-service.js';

export interface PasskeyRouteDeps {
  passkeys: PasskeyService;
  service: InquiryService;
  tokens: TokenService;
  limiter: RateLimiter;
}

type Env = { Variables: AuthVariables };

/** The JSON body parsed by `schema`, or the 400 naming the bad field. */
async function bodyOf<S extends z.ZodType>(c: Context<Env>, schema: S): Promise<z.infer<S> | Response> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    return errorResponse(c, 'invalid_input', 'body must be JSON');
  }
  const parsed = schema.safeParse(body);
  return parsed.success ? parsed.data : errorResponse(c, 'invalid_input', describeZodError(parsed.error));
}

/**
 * A person's passkeys, for their devices only: `POST /passkeys/options` (the registration options
 * JSON itself), `POST /passkeys` (the browser's `RegistrationResponseJSON`, 201 `{id}`), `GET /passkeys`,
 * `DELETE /passkeys/:id`; and `POST /inquiries/:id/passkey-options {arguments?}` (the authentication
 * options JSON itself, its challenge bound to that inquiry and those arguments).
 */
export function passkeyRoutes(deps: PasskeyRouteDeps): Hono<Env> {
  const app = new Hono<Env>();
  const devices = requireRole(deps.tokens, ['device']);
  const limited = rateLimit(deps.limiter);
  const deviceName = (c: Context<Env>) => c.req.header('x-device-name') ?? c.get('claims').name;

  app.post('/passkeys/options', devices, limited, async (c) => {
    const claims = c.get('claims');
    return c.json(await deps.passkeys.registrationOptions(claims.sub, claims.name));
  });

  app.post('/passkeys', devices, limited, async (c) => {
    const body = await bodyOf(c, WebAuthnRegistrationSchema);
    if (body instanceof Response) return body;
    return c.json(await deps.passkeys.register(c.get('claims').sub, body, deviceName(c)), 201);
  });

  app.get('/passkeys', devices, async (c) =>
    c.json({ items: await deps.passkeys.list(c.get('claims').sub) }),
  );

  app.delete('/passkeys/:id', devices, limited, async (c) => {
    const removed = await deps.passkeys.remove(c.get('claims').sub, c.req.param('id'));
    return removed ? c.body(null, 204) : errorResponse(c, 'not_found', 'no such passkey');
  });

  app.post('/inquiries/:id/passkey-options', devices, limited, async (c) => {
    const body = await bodyOf(c, PasskeyOptionsBodySchema);
    if (body instanceof Response) return body;
    const userId = c.get('claims').sub;
    const inquiry = await deps.service.find(c.req.param('id'), userId);
    return c.json(await deps.passkeys.approvalOptions(inquiry, userId, body.arguments));
  });

  return app;
}
