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
});
export type TokenClaims = z.infer<typeof TokenClaimsSchema>;
