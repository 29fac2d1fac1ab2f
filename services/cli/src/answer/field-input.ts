import { type FieldValue, type FormQuestion, fieldProblem } from '@hitl/protocol';

/** A typed line read as a field value: `value` undefined means "left blank". */
export type ParsedField = { ok: true; value: FieldValue | undefined } | { ok: false; problem: string };

type Question = Pick<FormQuestion, 'kind' | 'options'>;

const YES = new Set(['y', 'yes', 'true', '1']);
const NO = new Set(['n', 'no', 'false', '0']);

/**
 * An option typed out (exactly, then in any case) or picked by its number (1-based). The name wins, so
 * with shoe sizes 36..46 typing `42` picks "42", not the 42nd; `3` (no option named so) is the third.
 */
export function pickOption(options: readonly string[], typed: string): string | undefined {
  const text = typed.trim();
  const named =
    options.find((o) => o === text) ?? options.find((o) => o.toLowerCase() === text.toLowerCase());
  if (named !== undefined || !/^\d+$/.test(text)) return named;
  return options[Number(text) - 1];
}

function parseByKind(q: Question, text: string): ParsedField {
  const options = q.options ?? [];
  switch (q.kind) {
    case 'text':
      return { ok: true, value: text };
    case 'number': {
      const value = Number(text);
      return Number.isFinite(value) ? { ok: true, value } : { ok: false, problem: 'enter a number' };
    }
    case 'boolean': {
      const word = text.toLowerCase();
      if (YES.has(word)) return { ok: true, value: true };
      if (NO.has(word)) return { ok: true, value: false };
      return { ok: false, problem: 'answer y or n' };
    }
    case 'choice': {
      const value = pickOption(options, text);
      return value === undefined ? { ok: false, problem: `pick 1-${options.length}` } : { ok: true, value };
    }
    case 'multi': {
      const picked: string[] = [];
      for (const part of text.split(',').map((p) => p.trim())) {
        if (part === '') continue;
        const value = pickOption(options, part);
        if (value === undefined) return { ok: false, problem: `"${part}" is not one of 1-${options.length}` };
        picked.push(value);
      }
      return { ok: true, value: picked };
    }
  }
}

/**
 * Reads one line typed for a form field: text as typed; a number; y/n for yes-no; an option by number
 * or by name; several options separated by commas. The value is then checked with the protocol's own
 * `fieldProblem`, the rule the server applies. A blank line is "left blank" (the caller decides whether
 * that means the prefilled value, nothing, or "required").
 */
export function parseField(q: Question, line: string): ParsedField {
  const text = q.kind === 'text' ? line.replace(/\s+$/, '') : line.trim();
  if (text.trim() === '') return { ok: true, value: undefined };
  const parsed = parseByKind(q, text);
  if (!parsed.ok || parsed.value === undefined) return parsed;
  const problem = fieldProblem(q, parsed.value);
  return problem ? { ok: false, problem } : parsed;
}

/** A field value as the person reads it back ("blue, green", "yes"). */
export function showValue(value: FieldValue | undefined): string {
  if (value === undefined) return '(blank)';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length ? value.join(', ') : '(none)';
  return String(value);
}
