import { describeZodError, type PushPayload, PushPayloadSchema } from '@hitl/protocol';

export type { InquiryPush, PushPayload, ResolvedPush } from '@hitl/protocol';

/**
 * A push's JSON, checked where it enters the service worker with the node's own schema
 * (`PushPayloadSchema` in @hitl/protocol): a push is a boundary like any request, and a
 * bad one is dropped with the field named, never shown half-read. Unknown fields are ignored, so a
 * node that adds one does not break installed workers.
 */
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
  return parsed.success
    ? { ok: true, payload: parsed.data }
    : { ok: false, problem: describeZodError(parsed.error) };
}
