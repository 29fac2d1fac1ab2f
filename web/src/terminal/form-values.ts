import {
  type DeviceInquiry,
  type FieldValue,
  fieldProblem,
  type InquiryResponse,
  LIMITS,
  type QuestionKind,
  responseProblem,
} from '@hitl/protocol';

/** One input on a card: a form question, or the single answer of a plain question. */
export interface FieldSpec {
  id: string;
  prompt: string;
  kind: QuestionKind;
  options?: string[];
  required: boolean;
}

/** What an input holds while the person edits: text for text/number/choice, a list for multi. */
export type DraftValue = string | string[] | boolean | null;
export type Draft = Record<string, DraftValue>;

/** The id of the single field of a question without a form. */
export const SINGLE = 'answer';

export function fieldsOf(inquiry: DeviceInquiry): FieldSpec[] {
  if (inquiry.questions) {
    return inquiry.questions.map((q) => ({
      id: q.id,
      prompt: q.prompt,
      kind: q.kind,
      ...(q.options ? { options: q.options } : {}),
      required: q.required ?? false,
    }));
  }
  const kind: QuestionKind = inquiry.options ? 'choice' : 'text';
  return [
    {
      id: SINGLE,
      prompt: '',
      kind,
      ...(inquiry.options ? { options: inquiry.options } : {}),
      required: true,
    },
  ];
}

function toDraft(kind: QuestionKind, value: FieldValue | undefined): DraftValue {
  if (value === undefined) return kind === 'multi' ? [] : kind === 'boolean' ? null : '';
  if (kind === 'multi') return Array.isArray(value) ? value.map(String) : [];
  if (kind === 'boolean') return typeof value === 'boolean' ? value : null;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/**
 * The form as first shown: each question's default, overlaid by the prefilled answer. The asker's
 * `defaultAnswer` wins over a `suggestedAnswer`; `source` says which one was used, so a suggestion can be
 * marked as such.
 */
export function initialDraft(inquiry: DeviceInquiry): {
  draft: Draft;
  source: 'default' | 'suggested' | null;
} {
  const prefill = inquiry.defaultAnswer ?? inquiry.suggestedAnswer;
  const source = inquiry.defaultAnswer !== undefined ? 'default' : prefill !== undefined ? 'suggested' : null;
  const draft: Draft = {};
  for (const field of fieldsOf(inquiry)) {
    const question = inquiry.questions?.find((q) => q.id === field.id);
    let value: FieldValue | undefined = question?.default;
    if (typeof prefill === 'string' && field.id === SINGLE) value = prefill;
    if (prefill && typeof prefill === 'object' && prefill[field.id] !== undefined) value = prefill[field.id];
    draft[field.id] = toDraft(field.kind, value);
  }
  return { draft, source };
}

function isBlank(value: DraftValue): boolean {
  if (value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  return Array.isArray(value) && value.length === 0;
}

function parseField(field: FieldSpec, value: DraftValue): FieldValue {
  if (field.kind === 'number') return typeof value === 'string' ? Number(value.trim()) : Number.NaN;
  if (field.kind === 'multi') return Array.isArray(value) ? value : [];
  if (field.kind === 'boolean') return value === true;
  return typeof value === 'string' ? value : '';
}

/** Why one field's value would be refused (the server's rules, in words for the person), or null. */
export function fieldMessage(field: FieldSpec, value: DraftValue): string | null {
  if (isBlank(value)) return field.required ? 'An answer is required.' : null;
  if (field.kind === 'text' && typeof value === 'string' && value.length > LIMITS.answerChars) {
    return `Keep it under ${LIMITS.answerChars} characters.`;
  }
  const problem = fieldProblem(field, parseField(field, value));
  if (!problem) return null;
  if (field.kind === 'number') return 'Enter a number.';
  return `${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`;
}

/**
 * Turns the draft into the response the server expects (a string for a single question, an object keyed
 * by question id for a form, blank fields left out), or the problems to show next to each field.
 */
export function toResponse(
  inquiry: DeviceInquiry,
  draft: Draft,
): { response: InquiryResponse; problems: null } | { response: null; problems: Record<string, string> } {
  const fields = fieldsOf(inquiry);
  const problems: Record<string, string> = {};
  for (const field of fields) {
    const message = fieldMessage(field, draft[field.id] ?? null);
    if (message) problems[field.id] = message;
  }
  if (Object.keys(problems).length > 0) return { response: null, problems };
  let response: InquiryResponse;
  if (inquiry.questions) {
    const values: Record<string, FieldValue> = {};
    for (const field of fields) {
      const value = draft[field.id] ?? null;
      if (!isBlank(value)) values[field.id] = parseField(field, value);
    }
    response = values;
  } else {
    response = String(draft[SINGLE] ?? '');
  }
  // The server's own check, as a last guard against any rule the fields above missed.
  const problem = responseProblem(inquiry, response);
  return problem ? { response: null, problems: { _form: problem } } : { response, problems: null };
}
