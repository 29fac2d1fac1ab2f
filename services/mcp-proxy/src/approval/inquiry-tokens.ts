import type { TokenService } from '@hitl/auth';
import { decodeJwt } from 'jose';

/** How long a minted approval token lives, and how long it is reused. */
const MINTED_LIFETIME = '15m';
const REUSE_MS = 5 * 60_000;

/**
 * The bearer token the proxy uses at the inquiry node for a user. With the shared secret it mints a
 * short-lived agent token per user; with a configured token it uses that one, and only for the
 * user the token names (an approval must never reach another person's devices).
 */
export function inquiryTokens(source: { tokens?: TokenService; configured?: string }) {
  const cache = new Map<string, { token: string; until: number }>();
  const configuredUser = source.configured ? String(decodeJwt(source.configured).sub ?? '') : undefined;
  return async (userId: string): Promise<string> => {
    if (source.configured) {
      if (configuredUser !== userId) {
        throw new Error(`the configured inquiry token acts for "${configuredUser}", not for "${userId}"`);
      }
      return source.configured;
    }
    if (!source.tokens) throw new Error('no HITL_SECRET and no inquiry token: cannot ask anyone');
    const cached = cache.get(userId);
    if (cached && cached.until > Date.now()) return cached.token;
    const token = await source.tokens.sign(
      { sub: userId, role: 'agent', name: 'approval proxy' },
      { expiresIn: MINTED_LIFETIME },
    );
    cache.set(userId, { token, until: Date.now() + REUSE_MS });
    return token;
  };
}
