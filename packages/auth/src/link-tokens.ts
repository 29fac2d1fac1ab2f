import { createHmac, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';

/** Where a link was sent; it names the answering "device" (`email link`) and keys the audit trail. */
export const LinkChannelSchema = z.enum(['email', 'webhook', 'push', 'slack']);
export type LinkChannel = z.infer<typeof LinkChannelSchema>;

/** What an answer link is good for: one inquiry of one user, from one channel, until `expiresAt`. */
export interface LinkClaims {
  userId: string;
  inquiryId: string;
  channel: LinkChannel;
  /** Epoch ms; the end of the inquiry's answer window. */
  expiresAt: number;
  /** The link's own id (unguessable), for the audit trail; revocable like a token's `jti`. */
  linkId: string;
  /** Epoch seconds the link was signed: `hitl token revoke --user` withdraws links issued up to then. */
  issuedAt: number;
}

const ALG = 'HS256';
const ISSUER = 'hitl';
const AUDIENCE = 'hitl:answer-link';

const PayloadSchema = z.object({
  sub: z.string().min(1),
  inq: z.string().min(1),
  ch: LinkChannelSchema,
  jti: z.string().min(1),
  exp: z.number(),
  iat: z.number(),
});

/**
 * Signs and checks answer links: a link is a capability for one inquiry, so it is signed
 * with a key derived from the node secret for this purpose alone. A link never verifies as a bearer
 * token, nor a bearer token as a link (different key, and an audience bearer tokens do not carry).
 */
export class LinkTokens {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = createHmac('sha256', secret).update('hitl answer links v1').digest();
  }

  async sign(claims: Omit<LinkClaims, 'linkId' | 'issuedAt'>): Promise<string> {
    return new SignJWT({ inq: claims.inquiryId, ch: claims.channel })
      .setProtectedHeader({ alg: ALG })
      .setSubject(claims.userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setJti(randomBytes(12).toString('base64url'))
      .setIssuedAt()
      .setExpirationTime(Math.ceil(claims.expiresAt / 1000))
      .sign(this.key);
  }

  /** The link's claims; `expired` for a genuine link past its time; `null` for anything else. */
  async verify(token: string): Promise<LinkClaims | 'expired' | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [ALG],
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      const parsed = PayloadSchema.safeParse(payload);
      if (!parsed.success) return null;
      const { sub, inq, ch, jti, exp, iat } = parsed.data;
      return { userId: sub, inquiryId: inq, channel: ch, linkId: jti, expiresAt: exp * 1000, issuedAt: iat };
    } catch (error) {
      return (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : null;
    }
  }
}
