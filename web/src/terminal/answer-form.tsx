import type { PendingInquiry } from '@hitl/client';
import type { AnswerExtras, DeviceAck, InquiryResponse } from '@hitl/protocol';
import { type FormEvent, type KeyboardEvent, useRef, useState } from 'react';
import { ReasonInput } from './approval-edit';
import { FieldInput } from './fields';
import { useDraft } from './use-draft';
import { SendError, useSend } from './use-send';

export interface Actions {
  answer(inquiryId: string, response: InquiryResponse, extras?: AnswerExtras): Promise<DeviceAck>;
  refuse(inquiryId: string, reason?: string): Promise<DeviceAck>;
  /**
   * Approve with a passkey (the only approve a `requirePasskey` approval takes), bound to
   * `approvedArguments` (the whole arguments after any edit).
   */
  approveWithPasskey?(
    inquiryId: string,
    extras: AnswerExtras,
    approvedArguments?: Record<string, unknown>,
  ): Promise<DeviceAck>;
}

/** The buttons every card ends with; the primary one submits the card's form. */
export function CardButtons(props: { busy: boolean; primary: string; onRefuse(): void }) {
  return (
    <div className="buttons">
      <button type="submit" className="primary" disabled={props.busy}>
        {props.primary}
      </button>
      <button type="button" className="secondary" disabled={props.busy} onClick={props.onRefuse}>
        I'd rather not say
      </button>
    </div>
  );
}

/** The answer form of a question card: structured fields, prefill, validation, Answer and refuse. */
export function AnswerForm({ inquiry, actions }: { inquiry: PendingInquiry; actions: Actions }) {
  const { fields, draft, source, problems, change, check } = useDraft(inquiry);
  const { busy, error, run } = useSend();
  const formRef = useRef<HTMLFormElement>(null);
  const [reason, setReason] = useState('');

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (busy) return;
    const result = check();
    if (result.response !== null) {
      const { response } = result;
      void run(() => actions.answer(inquiry.inquiryId, response));
      return;
    }
    if (result.firstBad) {
      // Radio groups are found by name, other inputs by id.
      const id = CSS.escape(`${inquiry.inquiryId}-${result.firstBad}`);
      formRef.current?.querySelector<HTMLElement>(`[name="${id}"], #${id}`)?.focus();
    }
  };

  // Enter on a radio button or checkbox submits too (text inputs do it natively).
  const onKeyDown = (e: KeyboardEvent<HTMLFormElement>) => {
    const target = e.target as HTMLInputElement;
    if (e.key === 'Enter' && (target.type === 'radio' || target.type === 'checkbox')) {
      e.preventDefault();
      submit();
    }
  };

  return (
    <form ref={formRef} className="answer-form" noValidate onSubmit={submit} onKeyDown={onKeyDown}>
      {source === 'suggested' ? (
        <p className="prefill suggested">Suggested answer filled in: check it before you send.</p>
      ) : source === 'default' ? (
        <p className="prefill">Prefilled by the agent: edit anything before you send.</p>
      ) : null}
      <fieldset className="fields" disabled={busy}>
        {fields.map((field) => (
          <FieldInput
            key={field.id}
            field={field}
            idPrefix={inquiry.inquiryId}
            value={draft[field.id] ?? null}
            error={problems[field.id]}
            onChange={(value) => change(field.id, value)}
            onSubmitKey={() => submit()}
          />
        ))}
      </fieldset>
      {problems._form ? <p className="field-error">{problems._form}</p> : null}
      <SendError error={error} />
      <details className="refuse-reason">
        <summary>Rather not say? Tell the agent why (optional)</summary>
        <ReasonInput inquiryId={inquiry.inquiryId} value={reason} disabled={busy} onChange={setReason} />
      </details>
      <CardButtons
        busy={busy}
        primary={busy ? 'Sending…' : 'Answer'}
        onRefuse={() => void run(() => actions.refuse(inquiry.inquiryId, reason.trim() || undefined))}
      />
    </form>
  );
}
