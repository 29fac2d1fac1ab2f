import type { Inquiry } from '@hitl/protocol';
import { formatTime, oneLine, showValue } from '../ops/format';
import { outcomeText } from '../outcome';
import type { History } from './use-history';

/**
 * What was answered, in words (approvals read as Approved / Rejected): a person's answer or a fallback's
 * decision; a refusal's or timeout's preset text is not an answer and is not shown.
 */
export function answerText(
  inquiry: Pick<Inquiry, 'kind' | 'answer' | 'status' | 'resolvedBy'>,
): string | null {
  const decided = inquiry.status === 'answered' || inquiry.resolvedBy?.kind === 'decision-agent';
  if (inquiry.answer === undefined || !decided) return null;
  if (inquiry.kind === 'approval' && inquiry.answer === 'approve') return 'Approved';
  if (inquiry.kind === 'approval' && inquiry.answer === 'reject') return 'Rejected';
  return showValue(inquiry.answer);
}

/** The person's past inquiries: the question, what was answered, on which device, when, or how it ended. */
export function HistoryList({ history, deviceId }: { history: History; deviceId: string }) {
  return (
    <section className="history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {history.error ? (
        <p className="notice error" role="alert">
          Could not load the history: {history.error}
        </p>
      ) : null}
      {history.items?.length === 0 ? <p className="empty">Nothing answered yet.</p> : null}
      {history.items && history.items.length > 0 ? (
        <ol className="history-list">
          {history.items.map((inquiry) => {
            const answer = answerText(inquiry);
            const mine = inquiry.resolvedBy?.deviceId === deviceId;
            return (
              <li key={inquiry.inquiryId} data-inquiry-id={inquiry.inquiryId}>
                <p className="history-question">{oneLine(inquiry.question, 120)}</p>
                <p className="history-outcome">
                  <span className={`status ${inquiry.status}`}>
                    {outcomeText(inquiry.status, inquiry.resolvedBy, mine, inquiry.userId)}
                  </span>
                  {answer !== null ? (
                    <>
                      {': '}
                      <strong className="history-answer">{oneLine(answer, 200)}</strong>
                    </>
                  ) : null}
                </p>
                <p className="muted small">
                  {inquiry.resolvedAt !== undefined ? (
                    <time dateTime={new Date(inquiry.resolvedAt).toISOString()}>
                      {formatTime(inquiry.resolvedAt)}
                    </time>
                  ) : null}
                  {' · asked by '}
                  {oneLine(inquiry.asker.name ?? inquiry.asker.tokenSubject, 60)}
                </p>
              </li>
            );
          })}
        </ol>
      ) : null}
    </section>
  );
}
