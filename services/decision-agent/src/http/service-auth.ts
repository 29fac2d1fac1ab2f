import { type TokenClaims, TokenClaimsSchema } from '@hitl/protocol';
import type { MiddlewareHandler } from 'hono';
import { verify } from 'hono/jwt';

type AuthFailure = { code: 'unauthorized' | 'forbidden'; message: string };

/** True for a token revoked since it was signed (`hitl token revoke`). */
export type IsRevoked = (claims: TokenClaims) => boolean;

/**
 * Checks the caller's bearer token: an HS256 token signed with the shared `HITL_SECRET` (issuer
 * `hitl`) whose role is `ops`. The inquiry node mints one for itself; the secret never travels.
 */
export async function checkServiceToken(
  header: string | undefined,
  secret: string,
  isRevoked: IsRevoked = () => false,
): Promise<AuthFailure | null> {
  const token = header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (!token) return { code: 'unauthorized', message: 'missing bearer token' };
  let payload: unknown;
  try {
    // iat is not checked: a token minted on a host whose clock runs ahead must still work here.
    payload = await verify(token, secret, { alg: 'HS256', iss: 'hitl', iat: false });
  } catch {
    return { code: 'unauthorized', message: 'invalid or expired token' };
  }
  const claims = TokenClaimsSchema.safeParse(payload);
  if (!claims.success) return { code: 'unauthorized', message: 'invalid token claims' };
  if (isRevoked(claims.data)) return { code: 'unauthorized', message: 'invalid or expired token' };
  if (claims.data.role !== 'ops') {
    return {
      code: 'forbidden',
      message: `${claims.data.role === 'agent' ? 'an' : 'a'} ${claims.data.role} token cannot use the decision agent; needs ops`,
    };
  }
  return null;
}

/** Hono middleware around {@link checkServiceToken}: 401 / 403 with `{error: {code, message}}`. */
export function requireServiceToken(secret: string, isRevoked?: IsRevoked): MiddlewareHandler {
  return async (c, next) => {
    const failure = await checkServiceToken(c.req.header('authorization'), secret, isRevoked);
    if (!failure) return next();
    if (failure.code === 'unauthorized') c.header('WWW-Authenticate', 'Bearer');
    return c.json({ error: failure }, failure.code === 'unauthorized' ? 401 : 403);
  };
}
