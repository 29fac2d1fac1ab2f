import { createHash } from 'node:crypto';
import type { Role, TokenClaims } from '@hitl/protocol';
import type { Context, MiddlewareHandler } from 'hono';
import { authorize, bearerToken, type TokenService } from '../auth/tokens.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { errorResponse, JSONRPC, jsonRpcError } from './errors.js';

export interface AuthVariables {
  claims: TokenClaims;
  /** A fingerprint of the bearer token: rate-limit and call-registry key, never the token itself. */
  tokenKey: string;
}

export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('base64url').slice(0, 22);
}

type ErrorStyle = 'rest' | 'jsonrpc';

/** Admits a valid bearer token of one of `roles`: 401 without or with a bad one, 403 for another role. */
export function requireRole(
  tokens: TokenService,
  roles: readonly Role[],
  style: ErrorStyle,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const token = bearerToken(c.req.header('authorization'));
    const result = await authorize(tokens, token, roles);
    if (!result.ok) {
      if (result.code === 'unauthorized') c.header('WWW-Authenticate', 'Bearer');
      const status = result.code === 'unauthorized' ? 401 : 403;
      return style === 'jsonrpc'
        ? jsonRpcError(c, status, JSONRPC.serverError, result.message, { code: result.code })
        : errorResponse(c, result.code, result.message);
    }
    c.set('claims', result.claims);
    c.set('tokenKey', tokenFingerprint(token ?? ''));
    return next();
  };
}

/** Per-token request budget (HITL_RATE_PER_MIN); over it: 429 with `Retry-After`, nothing done. */
export function rateLimit(
  limiter: RateLimiter,
  style: ErrorStyle,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const decision = await limiter.consume(c.get('tokenKey'));
    return decision.ok ? next() : rateLimited(c, decision.retryAfterMs, style);
  };
}

/** The 429 answer (with `Retry-After`) for a spent budget, in the door's error style. */
export function rateLimited(c: Context, retryAfterMs: number, style: ErrorStyle): Response {
  const seconds = Math.ceil(retryAfterMs / 1000);
  const message = `rate limit reached; retry in ${seconds} s`;
  c.header('Retry-After', String(Math.max(1, seconds)));
  return style === 'jsonrpc'
    ? jsonRpcError(c, 429, JSONRPC.serverError, message, { code: 'rate_limited', retryAfterMs })
    : errorResponse(c, 'rate_limited', message, retryAfterMs);
}
