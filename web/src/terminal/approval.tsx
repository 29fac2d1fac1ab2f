import type { PendingInquiry } from '@hitl/client';
import { showInvisible } from '@hitl/protocol';
import type { Actions } from './answer-form';
import { approvalReasons, byteSize } from './approval-reasons';
import { SendError, useSend } from './use-send';

/** Arguments longer than this (characters or lines) fold, with their size on the fold. */
const FOLD_CHARS = 600;
const FOLD_LINES = 16;

function Arguments({ value }: { value: unknown }) {
  const text = showInvisible(JSON.stringify(value, null, 2) ?? 'null');
  const lines = text.split('\n').length;
  const pre = <pre className="json">{text}</pre>;
  if (text.length <= FOLD_CHARS && lines <= FOLD_LINES) return pre;
  return (
    <details className="fold">
      <summary>
        Show all arguments ({byteSize(text)}, {lines} lines)
      </summary>
      {pre}
    </details>
  );
}

/** Why this approval was asked, up front: critical, destructive, low confidence (and the words why). */
function Reasons({ inquiry }: { inquiry: PendingInquiry }) {
  const reasons = approvalReasons(inquiry);
  if (reasons.length === 0) return null;
  return (
    <div className="why">
      <h3 className="why-title">Why you are asked</h3>
      <ul>
        {reasons.map((r) => (
          <li key={r.label}>
            <strong>{r.label}</strong>
            {r.detail ? `: ${r.detail}` : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * An approval: why it was asked, the exact backend, tool and arguments the agent wants to run, and
 * Approve / Reject only (declining an approval is rejecting it: nothing runs either way).
 */
export function ApprovalForm({ inquiry, actions }: { inquiry: PendingInquiry; actions: Actions }) {
  const { busy, error, run } = useSend();
  const { action } = inquiry;
  return (
    <div className="approval">
      <Reasons inquiry={inquiry} />
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
            <Arguments value={action.arguments} />
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
      </div>
    </div>
  );
}
