import { type PendingInquiry, received } from '@hitl/client';
import { type DeviceAck, DeviceInquirySchema, type InquiryResult, InquiryResultSchema } from '@hitl/protocol';
import { answerText } from '../terminal/history-list';

/*
 * What the inquiry card reads from a tool result (pure, checked at this boundary): the result's
 * structured part (what the model reads too), and from its `_meta` only what the node put there for
 * the card while the inquiry is pending: the card token, the inquiry as a device sees it, its page.
 */

/** A tool result as the host hands it to the card. */
export interface ToolResultLike {
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
  isError?: boolean;
  content?: { type: string; text?: string }[];
}

/** What the card can do with an inquiry it shows. */
export interface CardView {
  result?: InquiryResult;
  /** Present while the card may answer (the call returned `pending`). */
  pending?: { inquiry: PendingInquiry; cardToken: string; page: string };
}

export function viewOf(result: ToolResultLike, localNow: number): CardView {
  const parsed = InquiryResultSchema.safeParse(result.structuredContent);
  const view: CardView = parsed.success ? { result: parsed.data } : {};
  const meta = result._meta ?? {};
  const inquiry = DeviceInquirySchema.safeParse(meta['hitl/inquiry']);
  const cardToken = meta['hitl/cardToken'];
  const page = meta['hitl/page'];
  if (
    inquiry.success &&
    typeof cardToken === 'string' &&
    typeof page === 'string' &&
    /^https?:\/\//.test(page)
  ) {
    view.pending = { inquiry: received(inquiry.data, localNow), cardToken, page };
  }
  return view;
}

/** The text of a tool result's first text part. */
export function textOf(result: ToolResultLike): string {
  return result.content?.find((part) => part.type === 'text')?.text ?? '';
}

/** `answer_inquiry`'s result as the ack the terminal's card components read. */
export function ackOf(result: ToolResultLike): DeviceAck {
  if (result.isError)
    return {
      ok: false,
      error: { code: 'invalid_input', message: textOf(result).replace(/^Not sent: /, '') },
    };
  const parsed = InquiryResultSchema.safeParse(result.structuredContent);
  return parsed.success && parsed.data.status !== 'not_found'
    ? { ok: true, status: parsed.data.status }
    : { ok: false, error: { code: 'internal', message: 'the server sent an answer the card cannot read' } };
}

/** What was answered, in words, once the inquiry ended with an answer (or a fallback's decision). */
export function endedAnswer(kind: 'question' | 'approval', result: InquiryResult): string | undefined {
  if (result.status === 'not_found' || result.status === 'pending') return undefined;
  const { status, answer, resolvedBy } = result;
  return (
    answerText({
      kind,
      status,
      ...(answer === undefined ? {} : { answer }),
      ...(resolvedBy ? { resolvedBy } : {}),
    }) ?? undefined
  );
}
