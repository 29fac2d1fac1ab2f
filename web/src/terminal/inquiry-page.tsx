import { type Inquiry, InquirySchema } from '@hitl/protocol';
import { useEffect, useState } from 'react';
import { outcomeText } from '../outcome';
import { nodeOrigin } from '../platform/node-url';
import { answerText } from './history-list';

/**
 * The inquiry a page address names: `/i/<inquiryId>`, where a chat (URL elicitation, the inquiry
 * card's "open in the browser") sends a person to decide one question outside the chat.
 */
export function inquiryFromPath(pathname: string): string | null {
  const match = /^\/i\/([^/]+)\/?$/.exec(pathname);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

type Found = { state: 'loading' } | { state: 'ended'; inquiry: Inquiry } | { state: 'missing' };

/**
 * What the page for one inquiry says above the cards: nothing while it is pending here (its card is
 * brought into view and focused), how it ended once it has, or that this person has no such question
 * (another person's, or gone). Read with the device token, so only the signed-in person's own.
 */
export function InquiryPageNotice({
  inquiryId,
  pending,
  synced,
  token,
}: {
  inquiryId: string;
  pending: boolean;
  synced: boolean;
  token: string;
}) {
  const [found, setFound] = useState<Found>({ state: 'loading' });
  useEffect(() => {
    if (!synced || pending) return;
    const abort = new AbortController();
    const origin = nodeOrigin(localStorage, window.location) ?? window.location.origin;
    fetch(`${origin}/api/inquiries/${encodeURIComponent(inquiryId)}`, {
      headers: { Authorization: `Bearer ${token}` },
      signal: abort.signal,
    })
      .then(async (response) => {
        const parsed = response.ok ? InquirySchema.safeParse(await response.json()) : undefined;
        setFound(parsed?.success ? { state: 'ended', inquiry: parsed.data } : { state: 'missing' });
      })
      .catch(() => {
        if (!abort.signal.aborted) setFound({ state: 'missing' });
      });
    return () => abort.abort();
  }, [inquiryId, pending, synced, token]);

  if (pending || !synced || found.state === 'loading') return null;
  if (found.state === 'missing') {
    return (
      <p className="notice" role="status">
        There is no question {inquiryId} for you: it may have been asked of someone else, or it is gone.
      </p>
    );
  }
  const { inquiry } = found;
  if (inquiry.status === 'pending') return null;
  const answer = answerText(inquiry);
  return (
    <p className="notice" role="status">
      This question has ended. {outcomeText(inquiry.status, inquiry.resolvedBy, false, inquiry.userId)}
      {answer !== null ? `: ${answer}` : ''}.
    </p>
  );
}
