import {
  authorize,
  bearerToken,
  type HostPolicy,
  hostOriginProblem,
  type TokenService,
  tokenFingerprint,
} from '@hitl/auth';
import { HitlError, type Role, retryAfterSeconds, type TokenClaims } from '@hitl/protocol';
import type { MiddlewareHandler } from 'hono';

/** A per-key budget of points (the node's rate limiter): `consume` spends `cost` points at once. */
export interface RequestBudget {
  consume(key: string, cost?: number): Promise<{ ok: true } | { ok: false; retryAfterMs: number }>;
}

export interface AuthVariables {
  claims: TokenClaims;
  /** A fingerprint of the bearer token: rate-limit and call-registry key, never the token itself. */
  tokenKey: string;
}

/*
 * The door checks below throw a HitlError; each door's own `onError` (`errorHandler`) renders it
 * in its form, `{error}` or JSON-RPC, with `WWW-Authenticate` / `Retry-After` where they belong.
 */

/** Refuses a request whose Host or Origin the policy does not allow (DNS rebinding, cross-site): 403. */
export function guardHost(policy: HostPolicy): MiddlewareHandler {
  return async (c, next) => {
    const problem = hostOriginProblem(policy, c.req.header('host'), c.req.header('origin'));
    if (problem) throw new HitlError('forbidden', problem);
    return next();
  };
}

/** Admits a valid bearer token of one of `roles`: 401 without or with a bad one, 403 for another role. */
export function requireRole(
  tokens: TokenService,
  roles: readonly Role[],
): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const token = bearerToken(c.req.header('authorization'));
    const result = await authorize(tokens, token, roles);
    if (!result.ok) throw new HitlError(result.code, result.message);
    c.set('claims', result.claims);
    c.set('tokenKey', tokenFingerprint(token ?? ''));
    return next();
  };
}

/** Per-token request budget (HITL_RATE_PER_MIN); over it: 429 with `Retry-After`, nothing done. */
export function rateLimit(limiter: RequestBudget): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    const decision = await limiter.consume(c.get('tokenKey'));
    if (!decision.ok) throw rateLimited(decision.retryAfterMs);
    return next();
  };
}

/** The 429 error for a spent budget. */
export function rateLimited(retryAfterMs: number): HitlError {
  const seconds = retryAfterSeconds(retryAfterMs);
  return new HitlError('rate_limited', `rate limit reached; retry in ${seconds} s`, retryAfterMs);
}
