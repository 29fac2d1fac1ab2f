import type { PendingInquiry, ResolvedNotice } from '@hitl/client';
import { showInvisible } from '@hitl/protocol';
import type { ReactNode } from 'react';
import { QuestionText } from '../markdown/safe-markdown';
import { outcomeText } from '../outcome';
import { type Actions, AnswerForm } from './answer-form';
import { ApprovalForm } from './approval';
import { Countdown } from './countdown';

function ContextBlock({ context }: { context: PendingInquiry['context'] }) {
  if (context === undefined) return null;
  return (
    <details className="context">
      <summary>Context</summary>
      <pre className="plain">
        {showInvisible(typeof context === 'string' ? context : JSON.stringify(context, null, 2))}
      </pre>
    </details>
  );
}

/**
 * One inquiry: who asked, the question (sanitised), its form or approval, the countdown. Once it ends
 * (`notice`), it says how ("Answered on Phone") and closes shortly after.
 */
export function InquiryCard(props: {
  inquiry: PendingInquiry;
  notice?: ResolvedNotice;
  /** Once it ended: what was answered, in words (from the history), when there was an answer. */
  answered?: string;
  actions: Actions;
  /** The signed-in person, so a quorum approval knows whether they voted. */
  userId?: string;
  /** Shown for an approval instead of its approve / reject form (the chat's card never approves). */
  approvalSlot?: ReactNode;
}) {
  const { inquiry, notice, actions } = props;
  const closed = notice !== undefined;
  const titleId = `q-${inquiry.inquiryId}`;
  // The agent that asked (its token's name); the token's subject is the person it acts for.
  const agentName = inquiry.asker.name;
  return (
    <article
      className={`card${closed ? ' closing' : ''}${inquiry.critical ? ' critical' : ''}`}
      aria-labelledby={titleId}
      data-inquiry-id={inquiry.inquiryId}
    >
      <header className="card-head">
        <span className="asker">
          {inquiry.kind === 'approval' ? 'Approval asked by ' : 'Asked by '}
          <strong>{agentName ? showInvisible(agentName) : 'an agent'}</strong>
          <span className="muted"> for {showInvisible(inquiry.asker.tokenSubject)}</span>
        </span>
        {inquiry.critical ? <span className="badge critical">Critical</span> : null}
        {closed ? null : <Countdown inquiry={inquiry} />}
      </header>
      <div className="question" id={titleId}>
        <QuestionText text={inquiry.question} format={inquiry.format} />
      </div>
      <ContextBlock context={inquiry.context} />
      {closed ? (
        <p className="outcome" role="status">
          {outcomeText(notice.status, notice.resolvedBy, notice.byThisDevice, inquiry.asker.tokenSubject)}
          {props.answered !== undefined ? (
            <>
              {': '}
              <strong className="answered">{props.answered}</strong>
            </>
          ) : null}
        </p>
      ) : inquiry.kind === 'approval' ? (
        (props.approvalSlot ?? <ApprovalForm inquiry={inquiry} actions={actions} userId={props.userId} />)
      ) : (
        <AnswerForm inquiry={inquiry} actions={actions} />
      )}
    </article>
  );
}
