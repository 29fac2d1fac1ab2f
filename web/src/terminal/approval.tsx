import type { PendingInquiry } from '@hitl/client';
import { showInvisible } from '@hitl/protocol';
import type { Actions } from './answer-form';
import { SendError, useSend } from './use-send';

/** An approval: the exact backend, tool and arguments the agent wants to run, and Approve / Reject. */
export function ApprovalForm({ inquiry, actions }: { inquiry: PendingInquiry; actions: Actions }) {
  const { busy, error, run } = useSend();
  const { action } = inquiry;
  return (
    <div className="approval">
      {action ? (
        <dl className="action">
          <dt>Backend</dt>
          <dd>
            <code>{showInvisible(action.server)}</code>
          </dd>
          <dt>Tool</dt>
          <dd>
            <code>{showInvisible(action.tool)}</code>
          </dd>
          <dt>Arguments</dt>
          <dd>
            <pre className="json">{showInvisible(JSON.stringify(action.arguments, null, 2))}</pre>
          </dd>
        </dl>
      ) : (
        <p className="muted">The agent did not say which action this approves.</p>
      )}
      <SendError error={error} />
      <div className="buttons">
        <button
          type="button"
          className="primary approve"
          disabled={busy}
          onClick={() => void run(() => actions.answer(inquiry.inquiryId, 'approve'))}
        >
          Approve
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => void run(() => actions.answer(inquiry.inquiryId, 'reject'))}
        >
          Reject
        </button>
        <button
          type="button"
          className="secondary"
          disabled={busy}
          onClick={() => void run(() => actions.refuse(inquiry.inquiryId))}
        >
          I'd rather not say
        </button>
      </div>
    </div>
  );
}
