import type { PendingInquiry } from '@hitl/client';
import { type AnswerExtras, showInvisible, type Vote } from '@hitl/protocol';
import { useState } from 'react';
import type { Actions } from './answer-form';
import { EditFields, editedArguments, editFields, initialText, mayStand, ReasonInput } from './approval-edit';
import { approvalReasons, byteSize } from './approval-reasons';
import { SendError, useSend } from './use-send';

/** "Approve and allow the same for a while": the one length the card offers. */
const STANDING_MINUTES = 15;

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
  const fields = editFields(inquiry);
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f) => [f.name, initialText(f, action?.arguments[f.name])])),
  );
  const [reason, setReason] = useState('');
  const [allow, setAllow] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const said = reason.trim() ? { reason: reason.trim() } : {};
  const approve = () => {
    const { edits, problem: bad } = editedArguments(fields, texts, action?.arguments ?? {});
    setProblem(bad ?? null);
    if (bad) return;
    const edited = Object.keys(edits).length > 0;
    const extras: AnswerExtras = {
      ...said,
      ...(edited ? { arguments: edits } : {}),
      // A passkey approval is never allowed for a while (the node refuses it).
      ...(allow && !inquiry.requirePasskey ? { allowFor: { minutes: STANDING_MINUTES } } : {}),
    };
    if (inquiry.requirePasskey) {
      const approved = edited ? { ...(action?.arguments ?? {}), ...edits } : undefined;
      void run(
        () =>
          actions.approveWithPasskey?.(inquiry.inquiryId, extras, approved) ??
          actions.answer(inquiry.inquiryId, 'approve', extras),
      );
      return;
    }
    void run(() => actions.answer(inquiry.inquiryId, 'approve', extras));
  };
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
      {mine ? null : (
        <>
          <EditFields
            inquiryId={inquiry.inquiryId}
            fields={fields}
            texts={texts}
            disabled={busy}
            onChange={(name, text) => setTexts({ ...texts, [name]: text })}
          />
          <ReasonInput inquiryId={inquiry.inquiryId} value={reason} disabled={busy} onChange={setReason} />
          {mayStand(inquiry) ? (
            <div className="field checkbox">
              <input
                id={`${inquiry.inquiryId}-allow`}
                type="checkbox"
                checked={allow}
                disabled={busy}
                onChange={(e) => setAllow(e.target.checked)}
              />
              <label htmlFor={`${inquiry.inquiryId}-allow`}>
                Also allow the same for {STANDING_MINUTES} minutes (later calls of this tool run without
                asking)
              </label>
            </div>
          ) : null}
        </>
      )}
      <SendError error={problem ?? error} />
      {mine ? null : (
        <div className="buttons">
          <button type="button" className="primary approve" disabled={busy} onClick={approve}>
            {inquiry.requirePasskey ? 'Approve with passkey' : 'Approve'}
          </button>
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => void run(() => actions.answer(inquiry.inquiryId, 'reject', said))}
          >
            Reject
          </button>
        </div>
      )}
    </div>
  );
}
