import type { PendingInquiry } from '@hitl/client';
import type { DeviceAck, InquiryResponse } from '@hitl/protocol';
import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from 'react';
import { FieldInput } from './fields';
import { type Draft, type DraftValue, fieldMessage, fieldsOf, initialDraft, toResponse } from './form-values';

export interface Actions {
  answer(inquiryId: string, response: InquiryResponse): Promise<DeviceAck>;
  refuse(inquiryId: string): Promise<DeviceAck>;
}

/** What a failed ack tells the person; an already-answered inquiry closes by itself, so says nothing. */
export function ackMessage(ack: DeviceAck): string | null {
  if (ack.ok || ack.error.code === 'already_resolved') return null;
  return `Not sent: ${ack.error.message}`;
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
  const fields = fieldsOf(inquiry);
  const [draft, setDraft] = useState<Draft>(() => initialDraft(inquiry).draft);
  const [source, setSource] = useState(() => initialDraft(inquiry).source);
  const [edited, setEdited] = useState(false);
  const [tried, setTried] = useState(false);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);

  // A suggestion that arrives later fills the form, unless the person already started editing.
  useEffect(() => {
    if (edited) return;
    const next = initialDraft(inquiry);
    setDraft(next.draft);
    setSource(next.source);
  }, [inquiry, edited]);

  const change = (id: string, value: DraftValue) => {
    setEdited(true);
    setDraft((d) => ({ ...d, [id]: value }));
    if (!tried) return;
    const field = fields.find((f) => f.id === id);
    const message = field ? fieldMessage(field, value) : null;
    setProblems(({ [id]: _old, _form: _f, ...rest }) => (message ? { ...rest, [id]: message } : rest));
  };

  const run = async (send: () => Promise<DeviceAck>) => {
    setBusy(true);
    setError(null);
    const ack = await send();
    setBusy(false);
    setError(ackMessage(ack));
  };

  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (busy) return;
    setTried(true);
    const result = toResponse(inquiry, draft);
    if (result.problems) {
      setProblems(result.problems);
      const first = fields.find((f) => result.problems[f.id]);
      const el =
        first &&
        formRef.current?.querySelector<HTMLElement>(`[name="${cssId(first.id)}"], #${cssId(first.id)}`);
      el?.focus();
      return;
    }
    setProblems({});
    void run(() => actions.answer(inquiry.inquiryId, result.response));
  };

  const cssId = (fieldId: string) => CSS.escape(`${inquiry.inquiryId}-${fieldId}`);

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
      {error ? (
        <p className="send-error" role="alert">
          {error}
        </p>
      ) : null}
      <CardButtons
        busy={busy}
        primary={busy ? 'Sending…' : 'Answer'}
        onRefuse={() => void run(() => actions.refuse(inquiry.inquiryId))}
      />
    </form>
  );
}
