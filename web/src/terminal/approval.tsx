import type { PendingInquiry } from '@hitl/client';
import { showInvisible, type Vote } from '@hitl/protocol';
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

/** A quorum approval's standing: "1 of 2 approvals", who voted what, and whether this person has. */
function Quorum({ inquiry, mine }: { inquiry: PendingInquiry; mine?: Vote }) {
  const votes = inquiry.votes ?? [];
  const approvals = votes.filter((v) => v.vote === 'approve').length;
  const needed = inquiry.quorum ?? 1;
  return (
    <div className="quorum" role="status">
      <p>
        <strong>
          {approvals} of {needed} approvals
        </strong>
        {mine
          ? ` · you ${mine.vote === 'approve' ? 'approved' : 'rejected'}; waiting for ${Math.max(0, needed - approvals)} more`
          : ` · ${needed} different people must approve; one reject stops it`}
      </p>
      {votes.length > 0 ? (
        <ul className="votes">
          {votes.map((v) => (
            <li key={v.userId}>
              {showInvisible(v.userId)} {v.vote === 'approve' ? 'approved' : 'rejected'}
              {v.deviceName ? <span className="muted"> on {showInvisible(v.deviceName)}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * An approval: why it was asked, the exact backend, tool and arguments the agent wants to run, and
 * Approve / Reject only (declining an approval is rejecting it: nothing runs either way).
 */
export function ApprovalForm(props: { inquiry: PendingInquiry; actions: Actions; userId?: string }) {
  const { inquiry, actions, userId } = props;
  const { busy, error, run } = useSend();
  const { action } = inquiry;
  const mine = inquiry.votes?.find((v) => v.userId === userId);
  return (
    <div className="approval">
      <Reasons inquiry={inquiry} />
      {inquiry.quorum !== undefined ? <Quorum inquiry={inquiry} mine={mine} /> : null}
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
      {mine ? null : (
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
      )}
    </div>
  );
}
