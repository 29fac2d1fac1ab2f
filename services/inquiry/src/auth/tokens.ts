import { type Role, type TokenClaims, TokenClaimsSchema } from '@hitl/protocol';
import { jwtVerify, SignJWT } from 'jose';

const ALG = 'HS256';
const ISSUER = 'hitl';

export interface TokenOptions {
  /** Lifetime, e.g. `30d`, `12h`; no expiry when undefined. */
  expiresIn?: string;
}

/** Signs and checks the HS256 tokens of agents, devices and ops. */
export class TokenService {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  async sign(claims: TokenClaims, options: TokenOptions = {}): Promise<string> {
    const { sub, ...rest } = TokenClaimsSchema.parse(claims);
    let jwt = new SignJWT(rest)
      .setProtectedHeader({ alg: ALG })
      .setSubject(sub)
      .setIssuer(ISSUER)
      .setIssuedAt();
    if (options.expiresIn) jwt = jwt.setExpirationTime(options.expiresIn);
    return jwt.sign(this.key);
  }

  /** The token's claims, or `null` when it is malformed, forged or expired. */
  async verify(token: string): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: [ALG], issuer: ISSUER });
      const parsed = TokenClaimsSchema.safeParse(payload);
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }
}

export type AuthResult =
  | { ok: true; claims: TokenClaims }
  | { ok: false; code: 'unauthorized' | 'forbidden'; message: string };

/** Checks a bearer token against the roles a door admits. */
export async function authorize(
  tokens: TokenService,
  token: string | undefined,
  roles: readonly Role[],
): Promise<AuthResult> {
  if (!token) return { ok: false, code: 'unauthorized', message: 'missing bearer token' };
  const claims = await tokens.verify(token);
  if (!claims) return { ok: false, code: 'unauthorized', message: 'invalid or expired token' };
  if (!roles.includes(claims.role)) {
    return {
      ok: false,
      code: 'forbidden',
      message: `a ${claims.role} token cannot use this; needs ${roles.join(' or ')}`,
    };
  }
  return { ok: true, claims };
}

/** The token from an `Authorization: Bearer <token>` header. */
export function bearerToken(header: string | undefined | null): string | undefined {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}
