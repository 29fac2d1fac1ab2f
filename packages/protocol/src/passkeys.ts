import { z } from 'zod';

/*
 * Passkeys (WebAuthn): the browser's JSON forms as SimpleWebAuthn writes them
 * (`RegistrationResponseJSON`, `AuthenticationResponseJSON`), checked for shape and size here; the
 * node's WebAuthn library checks what they say.
 */

const B64Url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'expected base64url');

/** What `navigator.credentials.get()` returns, as JSON: the answer's `webauthn` for a passkey approval. */
export const WebAuthnAssertionSchema = z.object({
  id: B64Url(1024),
  rawId: B64Url(1024),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: B64Url(8192),
    authenticatorData: B64Url(8192),
    signature: B64Url(2048),
    userHandle: B64Url(1024).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});
export type WebAuthnAssertion = z.infer<typeof WebAuthnAssertionSchema>;

/** What `navigator.credentials.create()` returns, as JSON: the body of `POST /api/passkeys`. */
export const WebAuthnRegistrationSchema = z.object({
  id: B64Url(1024),
  rawId: B64Url(1024),
  type: z.literal('public-key'),
  response: z.object({
    clientDataJSON: B64Url(8192),
    attestationObject: B64Url(32_768),
    authenticatorData: B64Url(8192).optional(),
    transports: z.array(z.string().max(32)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: B64Url(4096).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});
export type WebAuthnRegistration = z.infer<typeof WebAuthnRegistrationSchema>;

/** `POST /api/inquiries/:id/passkey-options`: the arguments being approved (after any edit; absent: as asked). */
export const PasskeyOptionsBodySchema = z.object({
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/** One of a person's passkeys, as `GET /api/passkeys` lists it. */
export const PasskeySchema = z.object({
  id: z.string(),
  deviceName: z.string().optional(),
  createdAt: z.number(),
  lastUsedAt: z.number().optional(),
});
export type Passkey = z.infer<typeof PasskeySchema>;

/** Passkeys one person may hold; registering another beyond it is refused. */
export const MAX_PASSKEYS_PER_USER = 20;
