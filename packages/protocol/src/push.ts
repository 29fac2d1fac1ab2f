import { z } from 'zod';
import { InquiryKindSchema, ResolvedBySchema, TerminalStatusSchema } from './inquiry.js';

/** Push limits. Push services accept about 4 KB of encrypted payload. */
export const PUSH_LIMITS = {
  /** Subscriptions one user may hold; a new one beyond it drops the oldest. */
  subscriptionsPerUser: 20,
  /** The question in a push payload, in bytes of UTF-8. */
  questionBytes: 1024,
  /** The options in a push payload, in bytes of JSON: more than this and they are left out. */
  optionsBytes: 1536,
  /** An endpoint URL, in characters. */
  endpointChars: 2048,
} as const;

/** base64url (browsers write it without padding) that decodes to exactly `bytes` bytes. */
const base64urlOf = (bytes: number) =>
  z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, 'expected base64url')
    .refine(
      (text) => Math.floor((text.replace(/=+$/, '').length * 3) / 4) === bytes,
      `expected ${bytes} bytes of base64url`,
    );

/**
 * `POST /api/push/subscriptions`: the browser's `PushSubscription.toJSON()` plus an optional device
 * name. Other fields the browser adds (`expirationTime`) are accepted and ignored. Whether the
 * endpoint's scheme is allowed is the server's call (https, or a host it lists).
 */
export const PushSubscriptionBodySchema = z.object({
  endpoint: z.string().max(PUSH_LIMITS.endpointChars).url('expected an absolute URL'),
  keys: z.object({
    /** The browser's P-256 public key (65 bytes uncompressed: 87 characters of base64url). */
    p256dh: base64urlOf(65),
    /** The 16-byte auth secret (22 characters of base64url). */
    auth: base64urlOf(16),
  }),
  expirationTime: z.number().nullable().optional(),
  deviceName: z.string().min(1).max(200).optional(),
});
export type PushSubscriptionBody = z.infer<typeof PushSubscriptionBodySchema>;

/** The push sent when an inquiry reaches its user. */
export const InquiryPushSchema = z.object({
  type: z.literal('inquiry'),
  inquiryId: z.string(),
  /** The question, cut to {@link PUSH_LIMITS.questionBytes} at a character boundary (`…` marks a cut). */
  question: z.string(),
  kind: InquiryKindSchema,
  /** The options, whole, when they fit in {@link PUSH_LIMITS.optionsBytes}; absent otherwise. */
  options: z.array(z.string()).optional(),
  /** Epoch ms: the end of the answer window (`answerBy`, else the service deadline). */
  answerBy: z.number(),
  /** An approval only a passkey approves: the notification opens its card instead of answering. */
  requirePasskey: z.boolean().optional(),
});
export type InquiryPush = z.infer<typeof InquiryPushSchema>;

/** The push sent when the inquiry ends: the same `Topic`, so it replaces the first one. */
export const ResolvedPushSchema = z.object({
  type: z.literal('resolved'),
  inquiryId: z.string(),
  status: TerminalStatusSchema,
  resolvedBy: ResolvedBySchema.optional(),
});
export type ResolvedPush = z.infer<typeof ResolvedPushSchema>;

/** What a service worker finds in a push from this service. */
export const PushPayloadSchema = z.discriminatedUnion('type', [InquiryPushSchema, ResolvedPushSchema]);
export type PushPayload = z.infer<typeof PushPayloadSchema>;
