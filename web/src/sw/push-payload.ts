import { z } from 'zod';

/**
 * What a push from the node carries (DESIGN §6.3), checked where it enters the service worker: a push
 * is a boundary like any request, and a bad one is dropped with the field named, never shown half-read.
 * Unknown fields are ignored, so a node that adds one does not break installed workers.
 */
export const InquiryPushSchema = z.object({
  type: z.literal('inquiry'),
  inquiryId: z.string().min(1).max(200),
  question: z.string().max(4096),
  kind: z.enum(['question', 'approval']),
  options: z.array(z.string().max(4096)).max(100).optional(),
  /** Epoch ms (the node's clock): the end of the answer window. */
  answerBy: z.number(),
});
export type InquiryPush = z.infer<typeof InquiryPushSchema>;

export const ResolvedPushSchema = z.object({
  type: z.literal('resolved'),
  inquiryId: z.string().min(1).max(200),
  status: z.enum(['answered', 'refused', 'timed_out', 'cancelled']),
  resolvedBy: z
    .object({
      kind: z.string(),
      deviceName: z.string().optional(),
    })
    .optional(),
});
export type ResolvedPush = z.infer<typeof ResolvedPushSchema>;

export const PushPayloadSchema = z.discriminatedUnion('type', [InquiryPushSchema, ResolvedPushSchema]);
export type PushPayload = z.infer<typeof PushPayloadSchema>;

/** The push's JSON, checked: the payload, or what is wrong with it ("inquiryId: expected string"). */
export function readPushPayload(
  text: string | null,
): { ok: true; payload: PushPayload } | { ok: false; problem: string } {
  if (text === null) return { ok: false, problem: 'the push carried no data' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the push data is not JSON' };
  }
  const parsed = PushPayloadSchema.safeParse(json);
  if (parsed.success) return { ok: true, payload: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? issue.path.join('.') : 'payload';
  return { ok: false, problem: `${where}: ${issue?.message ?? 'invalid'}` };
}
