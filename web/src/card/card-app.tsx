import type { ResolvedNotice } from '@hitl/client';
import type { InquiryResult } from '@hitl/protocol';
import type { App } from '@modelcontextprotocol/ext-apps';
import { useEffect, useRef, useState } from 'react';
import { QuestionText } from '../markdown/safe-markdown';
import { outcomeText } from '../outcome';
import { InquiryCard } from '../terminal/inquiry-card';
import type { CardFeed, CardFeedState } from './card-feed';
import { ackOf, type CardView, endedAnswer, type ToolResultLike, viewOf } from './card-result';

/** How long the card's `get_inquiry` waits before asking again while the question is pending, ms. */
const WAIT_MS = 25_000;

/** The question the call was made with (the host may send the tool input before the result). */
interface Asked {
  question?: string;
  format?: 'text' | 'markdown' | 'form';
}

function notice(inquiryId: string, result: InquiryResult, mine: boolean): ResolvedNotice | undefined {
  if (result.status === 'pending' || result.status === 'not_found') return undefined;
  return {
    inquiryId,
    status: result.status,
    ...(result.resolvedBy ? { resolvedBy: result.resolvedBy } : {}),
    byThisDevice: mine,
  };
}

/**
 * The inquiry card inside the chat: the web terminal's own card (sanitised markdown, invisible
 * characters shown, countdown, options and forms), answering through `answer_inquiry` once the
 * call has returned with a card token; an approval is decided on its page, never here.
 */
export function CardApp({ app, feed }: { app: App; feed: CardFeed }) {
  const [fed, setFed] = useState<CardFeedState>(feed.get);
  const [view, setView] = useState<CardView>(() => (fed.result ? viewOf(fed.result, Date.now()) : {}));
  const [mine, setMine] = useState(false);
  const first = useRef(fed);
  useEffect(() => {
    const take = (next: CardFeedState) => {
      setFed(next);
      if (next.result) setView(viewOf(next.result, Date.now()));
    };
    // What arrived between the first render and this subscription is taken now.
    if (feed.get() !== first.current) take(feed.get());
    return feed.subscribe(take);
  }, [feed]);
  const asked = (fed.input ?? {}) as Asked;

  // Live: while the question is pending, wait on it (get_inquiry) and show how it ended.
  const pendingId = view.pending?.inquiry.inquiryId;
  useEffect(() => {
    if (!pendingId) return;
    let stopped = false;
    void (async () => {
      while (!stopped) {
        const result = await app
          .callServerTool({ name: 'get_inquiry', arguments: { inquiryId: pendingId, waitMs: WAIT_MS } })
          .catch(() => undefined);
        if (stopped || !result) return;
        const next = viewOf(result as ToolResultLike, Date.now());
        if (next.result?.status !== 'pending') {
          setView((v) => ({ ...next, pending: v.pending ? { ...v.pending } : undefined }));
          return;
        }
      }
    })();
    return () => {
      stopped = true;
    };
  }, [app, pendingId]);

  const { pending, result } = view;
  if (pending) {
    const { inquiry, cardToken, page } = pending;
    const ended = result && result.status !== 'pending' ? notice(inquiry.inquiryId, result, mine) : undefined;
    const openPage = () => void app.openLink({ url: page });
    return (
      <main className="card-app">
        <InquiryCard
          inquiry={inquiry}
          notice={ended}
          answered={result && ended ? endedAnswer(inquiry.kind, result) : undefined}
          actions={{
            answer: async (inquiryId, response) => {
              const reply = await app.callServerTool({
                name: 'answer_inquiry',
                arguments: { cardToken, response },
              });
              const ack = ackOf(reply as ToolResultLike);
              if (ack.ok) {
                setMine(true);
                setView((v) => ({
                  ...v,
                  ...viewOf(reply as ToolResultLike, Date.now()),
                  pending: v.pending,
                }));
              }
              void inquiryId;
              return ack;
            },
            refuse: async () => {
              openPage();
              return {
                ok: false,
                error: { code: 'invalid_input', message: 'decline on the page opened in your browser' },
              };
            },
          }}
          approvalSlot={
            <div className="buttons">
              <p>An approval is decided in the browser, outside the chat, where you sign in as usual.</p>
              <button type="button" className="primary" onClick={openPage}>
                Open in the browser to decide
              </button>
            </div>
          }
        />
      </main>
    );
  }
  return (
    <main className="card-app">
      <article className="card" aria-labelledby="card-question">
        <div className="question" id="card-question">
          {asked.question ? (
            <QuestionText text={asked.question} format={asked.format ?? 'text'} />
          ) : (
            <p>A question for you</p>
          )}
        </div>
        <p className="outcome" role="status">
          {result === undefined || result.status === 'pending'
            ? 'Waiting for your answer on your devices. This card can answer once the call has returned.'
            : result.status === 'not_found'
              ? 'This question is not there any more.'
              : `${outcomeText(result.status, result.resolvedBy)}${endedAnswer('question', result) === undefined ? '' : `: ${endedAnswer('question', result)}`}`}
        </p>
      </article>
    </main>
  );
}
