import type { PendingInquiry } from '@hitl/client';
import { editableNames, LIMITS, sameJson, showInvisible, standingProblem } from '@hitl/protocol';

/** How one editable argument is typed in: by its JSON Schema type. */
type EditKind = 'text' | 'number' | 'integer' | 'boolean' | 'json';

export interface EditField {
  name: string;
  kind: EditKind;
  description?: string;
}

/** The kind of input for a property of the tool's input schema. */
function kindOf(property: unknown): EditKind {
  const type = (property as { type?: unknown } | undefined)?.type;
  if (type === 'string') return 'text';
  if (type === 'number' || type === 'integer' || type === 'boolean') return type;
  return 'json';
}

/** The arguments the person may edit on this approval, with the input each takes. */
export function editFields(inquiry: PendingInquiry): EditField[] {
  const { action } = inquiry;
  if (!action || inquiry.editable === undefined) return [];
  const properties = (action.inputSchema?.properties ?? {}) as Record<string, unknown>;
  return editableNames(inquiry.editable, action).map((name) => {
    const description = (properties[name] as { description?: unknown } | undefined)?.description;
    return {
      name,
      kind: kindOf(properties[name]),
      ...(typeof description === 'string' ? { description } : {}),
    };
  });
}

/** The text an input starts with: the asked value. */
export function initialText(field: EditField, value: unknown): string {
  if (value === undefined) return '';
  if (field.kind === 'json') return JSON.stringify(value, null, 2);
  return typeof value === 'string' ? value : String(value);
}

/** The value an input holds, or a problem to show (a number that is not one, JSON that does not parse). */
export function readText(field: EditField, text: string): { value?: unknown; problem?: string } {
  switch (field.kind) {
    case 'text':
      return { value: text };
    case 'boolean':
      return { value: text === 'true' };
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n)) return { problem: 'enter a number' };
      if (field.kind === 'integer' && !Number.isInteger(n)) return { problem: 'enter a whole number' };
      return { value: n };
    }
    case 'json':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { problem: 'enter valid JSON' };
      }
  }
}

/**
 * The edited values that differ from the asked ones (what `arguments` carries), or the first
 * problem. Empty: nothing was changed.
 */
export function editedArguments(
  fields: EditField[],
  texts: Record<string, string>,
  asked: Record<string, unknown>,
): { edits: Record<string, unknown>; problem?: string } {
  const edits: Record<string, unknown> = {};
  for (const field of fields) {
    const text = texts[field.name];
    if (text === undefined) continue;
    const read = readText(field, text);
    if (read.problem) return { edits, problem: `${field.name}: ${read.problem}` };
    if (!sameJson(read.value, asked[field.name])) edits[field.name] = read.value;
  }
  return { edits };
}

/** True when this approval may be allowed for a while (the node says so too, and refuses otherwise). */
export function mayStand(inquiry: PendingInquiry): boolean {
  return standingProblem(inquiry) === null;
}

/** The editable arguments as a form, prefilled with what the agent asked. */
export function EditFields(props: {
  inquiryId: string;
  fields: EditField[];
  texts: Record<string, string>;
  disabled: boolean;
  onChange(name: string, text: string): void;
}) {
  const { inquiryId, fields, texts, disabled, onChange } = props;
  if (fields.length === 0) return null;
  return (
    <fieldset className="edit-args" disabled={disabled}>
      <legend>Edit before approving</legend>
      <p className="muted">Change what you want; the action runs with your values, and the agent is told.</p>
      {fields.map((field) => {
        const id = `${inquiryId}-edit-${field.name}`;
        const text = texts[field.name] ?? '';
        const label = (
          <label htmlFor={id}>
            <code>{showInvisible(field.name)}</code>
            {field.description ? <span className="muted"> · {showInvisible(field.description)}</span> : null}
          </label>
        );
        if (field.kind === 'boolean') {
          return (
            <div key={field.name} className="field checkbox">
              <input
                id={id}
                type="checkbox"
                checked={text === 'true'}
                onChange={(e) => onChange(field.name, String(e.target.checked))}
              />
              {label}
            </div>
          );
        }
        return (
          <div key={field.name} className="field">
            {label}
            {field.kind === 'json' ? (
              <textarea
                id={id}
                rows={4}
                value={text}
                onChange={(e) => onChange(field.name, e.target.value)}
              />
            ) : (
              <input
                id={id}
                type={field.kind === 'text' ? 'text' : 'number'}
                value={text}
                onChange={(e) => onChange(field.name, e.target.value)}
              />
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

/** The reason box: the agent reads it with a reject (and with an approve, when given). */
export function ReasonInput(props: {
  inquiryId: string;
  value: string;
  disabled: boolean;
  onChange(v: string): void;
}) {
  const id = `${props.inquiryId}-reason`;
  return (
    <div className="field reason">
      <label htmlFor={id}>Why (optional, the agent reads it)</label>
      <textarea
        id={id}
        rows={2}
        maxLength={LIMITS.reasonChars}
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </div>
  );
}
