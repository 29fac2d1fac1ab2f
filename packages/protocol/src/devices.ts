import { z } from 'zod';
import { UserIdSchema } from './tokens.js';

/**
 * Adding a device the way iCloud does: a signed-in device makes a one-time pairing
 * code, the new device claims it and gets a device token of its own. Browser-safe.
 */
export const PAIRING_LIMITS = {
  /** Characters in a pairing code. */
  codeLength: 8,
  /** The longest a pairing lives (at most 10 minutes). */
  maxTtlMs: 10 * 60_000,
  /** Wrong codes one address may send in a minute; the next is 429. */
  wrongCodesPerMin: 10,
  /** A device name, in characters (after cleaning). */
  deviceNameChars: 100,
} as const;

/**
 * The code's alphabet: digits and capitals without the look-alikes 0/O, 1/I/L (and U, which reads as
 * V in some fonts): 30 symbols, so 8 of them are ~39 bits, plenty for ten minutes and ten tries a
 * minute per address.
 */
export const PAIRING_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A code as typed: spaces and dashes dropped, letters in capitals. Browser-safe so the page, the
 * CLI and the node agree on what a code is.
 */
export function normalizePairingCode(typed: string): string {
  return typed.replace(/[\s-]/g, '').toUpperCase();
}

/** True when `code` (normalized) has the length and alphabet of a pairing code. */
export function isPairingCode(code: string): boolean {
  return code.length === PAIRING_LIMITS.codeLength && [...code].every((ch) => PAIRING_ALPHABET.includes(ch));
}

/** `ABCD2345` as `ABCD-2345`, for people to read and type. */
export function formatPairingCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * The code in a pairing URL (`https://node/pair#ABCD2345`), or the text itself as a code; `undefined`
 * when neither is a pairing code.
 */
export function pairingCodeOf(text: string): string | undefined {
  const trimmed = text.trim();
  const hash = URL.canParse(trimmed) ? new URL(trimmed).hash.slice(1) : trimmed;
  const code = normalizePairingCode(decodeURIComponent(hash));
  return isPairingCode(code) ? code : undefined;
}

/**
 * A device name as people typed it, cleaned: line breaks and tabs made spaces, other control and
 * format characters (bidi, zero-width) dropped, runs of spaces made one, trimmed. Then 1..100 characters.
 */
export const DeviceNameSchema = z
  .string()
  .max(1000)
  .transform((name) =>
    name
      .replace(/[\t\n\v\f\r\p{Zl}\p{Zp}]/gu, ' ')
      .replace(/[\p{Cc}\p{Cf}]/gu, '')
      .replace(/\s+/gu, ' ')
      .trim(),
  )
  .pipe(z.string().min(1, 'must not be empty').max(PAIRING_LIMITS.deviceNameChars));

/** `POST /api/pairings/claim`. */
export const PairingClaimBodySchema = z
  .object({
    /** The code, as typed or from the URL (spaces, dashes and case do not matter). */
    code: z.string().min(1).max(64),
    deviceName: DeviceNameSchema,
  })
  .strict();
export type PairingClaimBody = z.infer<typeof PairingClaimBodySchema>;

/** `POST /api/pairings` → 201. */
export const PairingSchema = z.object({
  pairingId: z.string(),
  code: z.string(),
  /** `<node>/pair#<code>`: what the QR code holds. */
  url: z.string(),
  /** Epoch ms. */
  expiresAt: z.number(),
});
export type Pairing = z.infer<typeof PairingSchema>;

/** `POST /api/pairings/claim` → 200. */
export const PairingClaimResultSchema = z.object({
  token: z.string(),
  user: UserIdSchema,
  deviceName: z.string(),
});
export type PairingClaimResult = z.infer<typeof PairingClaimResultSchema>;

/** One entry of `GET /api/devices`. */
export const DeviceSchema = z.object({
  /** The device token's id: what `DELETE /api/devices/:jti` names. */
  jti: z.string(),
  deviceName: z.string(),
  /** Epoch ms: when the token was paired or first seen. */
  createdAt: z.number(),
  /** Epoch ms: the latest connect or use (written at most once a minute). */
  lastSeenAt: z.number(),
  /** True for the token that asked. */
  current: z.boolean(),
});
export type Device = z.infer<typeof DeviceSchema>;

export const DeviceListSchema = z.object({ items: z.array(DeviceSchema) });
export type DeviceList = z.infer<typeof DeviceListSchema>;

/** `DELETE /api/devices/:jti` → 200. */
export const DeviceRevokedSchema = z.object({ revoked: z.object({ jti: z.string() }) });
