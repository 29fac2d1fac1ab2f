import { showInvisible } from '@hitl/protocol';
import type { KeyboardEvent } from 'react';
import type { DraftValue, FieldSpec } from './form-values';
import { SINGLE } from './form-values';

interface FieldProps {
  field: FieldSpec;
  /** Unique per card, so ids and radio groups never clash across cards. */
  idPrefix: string;
  value: DraftValue;
  error?: string;
  onChange(value: DraftValue): void;
  /** Submits the card's form (Enter in the free-text answer; Shift+Enter adds a line). */
  onSubmitKey(): void;
}

/** Options past this count use a select instead of radio buttons. */
const RADIO_MAX = 8;

function Prompt({ field, htmlFor }: { field: FieldSpec; htmlFor?: string }) {
  const text = field.prompt || (field.kind === 'choice' ? 'Choose one' : 'Your answer');
  const mark = field.required ? (
    <span className="required" title="required">
      {' '}
      *<span className="visually-hidden"> (required)</span>
    </span>
  ) : null;
  if (htmlFor) {
    return (
      <label className="prompt" htmlFor={htmlFor}>
        {showInvisible(text)}
        {mark}
      </label>
    );
  }
  return (
    <legend className="prompt">
      {showInvisible(text)}
      {mark}
    </legend>
  );
}

/** One question of the card: the right input for its kind, its label, required mark and message. */
export function FieldInput({ field, idPrefix, value, error, onChange, onSubmitKey }: FieldProps) {
  const id = `${idPrefix}-${field.id}`;
  const errorId = `${id}-error`;
  const described = error ? { 'aria-describedby': errorId, 'aria-invalid': true } : {};
  const message = error ? (
    <p className="field-error" id={errorId}>
      {error}
    </p>
  ) : null;
  const text = typeof value === 'string' ? value : '';

  if (field.kind === 'text' || field.kind === 'number') {
    const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
        e.preventDefault();
        onSubmitKey();
      }
    };
    const common = {
      id,
      value: text,
      'aria-required': field.required,
      ...described,
    };
    return (
      <div className="field">
        <Prompt field={field} htmlFor={id} />
        {field.id === SINGLE && field.kind === 'text' ? (
          <textarea {...common} rows={3} onChange={(e) => onChange(e.target.value)} onKeyDown={onKeyDown} />
        ) : (
          <input
            {...common}
            type="text"
            inputMode={field.kind === 'number' ? 'decimal' : 'text'}
            autoComplete="off"
            onChange={(e) => onChange(e.target.value)}
          />
        )}
        {message}
      </div>
    );
  }

  if (field.kind === 'choice' && (field.options?.length ?? 0) > RADIO_MAX) {
    return (
      <div className="field">
        <Prompt field={field} htmlFor={id} />
        <select id={id} value={text} onChange={(e) => onChange(e.target.value)} {...described}>
          <option value="">Choose…</option>
          {field.options?.map((o) => (
            <option key={o} value={o}>
              {showInvisible(o)}
            </option>
          ))}
        </select>
        {message}
      </div>
    );
  }

  const choices: { label: string; checked: boolean; toggle(): void }[] =
    field.kind === 'boolean'
      ? [
          { label: 'Yes', checked: value === true, toggle: () => onChange(true) },
          { label: 'No', checked: value === false, toggle: () => onChange(false) },
        ]
      : (field.options ?? []).map((option) => {
          const list = Array.isArray(value) ? value : [];
          return field.kind === 'multi'
            ? {
                label: option,
                checked: list.includes(option),
                toggle: () =>
                  onChange(list.includes(option) ? list.filter((o) => o !== option) : [...list, option]),
              }
            : { label: option, checked: value === option, toggle: () => onChange(option) };
        });
  return (
    <fieldset className="field choices" {...described}>
      <Prompt field={field} />
      {choices.map((choice, index) => (
        <label className="choice" key={choice.label}>
          <input
            type={field.kind === 'multi' ? 'checkbox' : 'radio'}
            name={id}
            id={`${id}-${index}`}
            checked={choice.checked}
            onChange={choice.toggle}
          />
          <span>{showInvisible(choice.label)}</span>
        </label>
      ))}
      {message}
    </fieldset>
  );
}
