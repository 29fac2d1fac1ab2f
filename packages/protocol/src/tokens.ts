import { z } from 'zod';

export const RoleSchema = z.enum(['agent', 'device', 'ops']);
export type Role = z.infer<typeof RoleSchema>;

/** User ids appear in Redis keys and URLs: keep them to a safe alphabet. */
export const UserIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.@-]+$/, 'user id may hold only letters, digits and _ . @ -');

/** Claims every token carries (HS256-signed). */
export const TokenClaimsSchema = z.object({
  sub: UserIdSchema,
  role: RoleSchema,
  /** Optional display name of the agent or device the token was minted for. */
  name: z.string().max(200).optional(),
  /** The token's own id: what `hitl token revoke --jti` names. Set by the signer. */
  jti: z.string().min(1).max(100).optional(),
  /** Issued-at and expiry, epoch seconds (set by the signer; read back on verify). */
  iat: z.number().int().optional(),
  exp: z.number().int().optional(),
});
export type TokenClaims = z.infer<typeof TokenClaimsSchema>;

/**
 * `POST /api/revocations` (ops): revoke one token by its `jti`, or every token of `user` issued up
 * to now. Exactly one of the two.
 */
export const RevocationBodySchema = z.union([
  z.object({ jti: z.string().min(1).max(100) }).strict(),
  z.object({ user: UserIdSchema }).strict(),
]);
export type RevocationBody = z.infer<typeof RevocationBodySchema>;
