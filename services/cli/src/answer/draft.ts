import type { PendingInquiry } from '@hitl/client';
import {
  type AnswerExtras,
  type FieldValue,
  type FormQuestion,
  type InquiryResponse,
  responseProblem,
} from '@hitl/protocol';
import { approvalIntro, editable, editIntro, submitApproval, submitEdit } from './approval-step.js';
import { parseField, pickOption, showValue } from './field-input.js';
import { numbered, plain } from './text.js';

/** Where the person is in answering one inquiry. */
export type Step =
  | { kind: 'text' }
  | { kind: 'option' }
  | { kind: 'approval' }
  | { kind: 'edit'; index: number }
  | { kind: 'field'; index: number }
  | { kind: 'confirm' };

/** One inquiry being answered: the step and, for a form, the values typed so far. */
export interface Draft {
  readonly inquiry: PendingInquiry;
  readonly step: Step;
  /** Form values so far (prefilled ones included); a field left blank is absent. */
  readonly values: Readonly<Record<string, FieldValue>>;
  /** The prefilled answer of a single question, sent when the person just presses Enter. */
  readonly single?: string;
  /** True when the prefill is the fallback's suggestion rather than the agent's default. */
  readonly suggested: boolean;
  /** An approval's edited arguments so far (sent with approve). */
  readonly edits?: Readonly<Record<string, unknown>>;
}

/** What one typed line did: the draft after it, lines to print, and the response once complete. */
export interface DraftResult {
  draft: Draft;
  say: string[];
  send?: InquiryResponse;
  /** What goes with the response: a reason, an approval's edits, a standing approval. */
  extras?: AnswerExtras;
}

const CLEAR = '-';

const isObject = (v: unknown): v is Record<string, FieldValue> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each field's `default`, overlaid by `defaultAnswer` (or, without one, the suggested answer). */
function prefill(inquiry: PendingInquiry): Pick<Draft, 'values' | 'single' | 'suggested'> {
  const given = inquiry.defaultAnswer ?? inquiry.suggestedAnswer;
  const suggested = inquiry.defaultAnswer === undefined && inquiry.suggestedAnswer !== undefined;
  const values: Record<string, FieldValue> = {};
  for (const q of inquiry.questions ?? []) if (q.default !== undefined) values[q.id] = q.default;
  if (inquiry.questions && isObject(given)) {
    const ids = new Set(inquiry.questions.map((q) => q.id));
    for (const [id, value] of Object.entries(given)) if (ids.has(id)) values[id] = value;
  }
  const single = !inquiry.questions && typeof given === 'string' && given.trim() ? given : undefined;
  return { values, suggested, ...(single !== undefined ? { single } : {}) };
}

/** The draft an inquiry starts with: the first step of its kind, prefilled. */
export function startDraft(inquiry: PendingInquiry): Draft {
  const base = prefill(inquiry);
  const step: Step =
    inquiry.kind === 'approval'
      ? { kind: 'approval' }
      : inquiry.questions
        ? { kind: 'field', index: 0 }
        : inquiry.options
          ? { kind: 'option' }
          : { kind: 'text' };
  return { inquiry, step, ...base };
}

const questionsOf = (draft: Draft): FormQuestion[] => draft.inquiry.questions ?? [];

function kindHint(q: FormQuestion): string {
  const count = q.options?.length ?? 0;
  switch (q.kind) {
    case 'text':
      return 'text';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'y or n';
    case 'choice':
      return `pick 1-${count}`;
    case 'multi':
      return `pick any of 1-${count}, separated by commas`;
  }
}

function prefillLine(draft: Draft, shown: string): string {
  return draft.suggested
    ? `Suggested answer (check it): ${shown}. Enter alone sends it.`
    : `Prefilled: ${shown}. Enter alone sends it.`;
}

/** Lines printed when a step begins: what to type, the options, the prefilled value. */
export function stepIntro(draft: Draft): string[] {
  const { step } = draft;
  switch (step.kind) {
    case 'text':
      return [
        'Type your answer and press Enter.',
        ...(draft.single ? [prefillLine(draft, draft.single)] : []),
      ];
    case 'option':
      return [
        `Pick 1-${draft.inquiry.options?.length ?? 0} (or type the option).`,
        ...(draft.single ? [prefillLine(draft, draft.single)] : []),
      ];
    case 'approval':
      return approvalIntro(draft.inquiry, draft.edits ?? {});
    case 'edit':
      return editIntro(draft.inquiry, draft.edits ?? {}, step.index);
    case 'field': {
      const questions = questionsOf(draft);
      const q = questions[step.index];
      if (!q) return [];
      const value = draft.values[q.id];
      return [
        `(${step.index + 1}/${questions.length}) ${plain(q.prompt)} [${kindHint(q)}${q.required ? ', required' : ''}]`,
        ...(q.options ? numbered(q.options, '    ') : []),
        ...(value !== undefined
          ? [
              `    ${draft.suggested ? 'suggested' : 'now'}: ${showValue(value)} (Enter keeps it, ${CLEAR} clears it)`,
            ]
          : []),
      ];
    }
    case 'confirm':
      return [
        'Your answers:',
        ...questionsOf(draft).map((q) => `  ${q.id}: ${plain(showValue(draft.values[q.id]))}`),
        'Send them? [Y/n] (/back changes the last one)',
      ];
  }
}

/** The short label in the input prompt for the current step. */
export function stepLabel(draft: Draft): string {
  const { step } = draft;
  if (step.kind === 'field') return questionsOf(draft)[step.index]?.id ?? 'field';
  if (step.kind === 'edit') return editable(draft.inquiry)[step.index] ?? 'edit';
  return { text: 'answer', option: 'pick', approval: 'approve/reject', confirm: 'send?' }[step.kind];
}

const at = (draft: Draft, step: Step): Draft => ({ ...draft, step });
const again = (draft: Draft, problem: string): DraftResult => ({ draft, say: [`! ${problem}`] });
const moved = (draft: Draft): DraftResult => ({ draft, say: stepIntro(draft) });

/** A single answer, checked by the protocol's `responseProblem` (the server's own rule). */
function sendChecked(draft: Draft, response: InquiryResponse): DraftResult {
  const problem = responseProblem(draft.inquiry, response);
  return problem ? again(draft, problem) : { draft, say: [], send: response };
}

function submitField(draft: Draft, index: number, line: string): DraftResult {
  const questions = questionsOf(draft);
  const q = questions[index];
  if (!q) return moved(at(draft, { kind: 'confirm' }));
  const values = { ...draft.values };
  if (line.trim() === CLEAR) {
    delete values[q.id];
  } else {
    const parsed = parseField(q, line);
    if (!parsed.ok) return again(draft, parsed.problem);
    if (parsed.value !== undefined) values[q.id] = parsed.value;
  }
  if (values[q.id] === undefined && q.required) return again(draft, 'an answer is required');
  const next: Step = index + 1 < questions.length ? { kind: 'field', index: index + 1 } : { kind: 'confirm' };
  return moved({ ...draft, values, step: next });
}

function submitConfirm(draft: Draft, line: string): DraftResult {
  const word = line.trim().toLowerCase();
  if (word === 'n' || word === 'no') return moved(at(draft, { kind: 'field', index: 0 }));
  if (word !== '' && word !== 'y' && word !== 'yes')
    return again(draft, 'type y to send or n to go over them');
  const response = { ...draft.values };
  const problem = responseProblem(draft.inquiry, response);
  if (!problem) return { draft, say: [], send: response };
  // "<id>: <problem>": go back to that field.
  const index = questionsOf(draft).findIndex((q) => problem.startsWith(`${q.id}:`));
  return { draft: at(draft, { kind: 'field', index: Math.max(0, index) }), say: [`! ${problem}`] };
}

/** Applies one typed line to the draft. */
export function submitLine(draft: Draft, line: string): DraftResult {
  const { step } = draft;
  switch (step.kind) {
    case 'text': {
      const typed = line.replace(/\s+$/, '');
      return sendChecked(draft, typed === '' && draft.single ? draft.single : typed);
    }
    case 'option': {
      const options = draft.inquiry.options ?? [];
      const picked = line.trim() === '' ? draft.single : pickOption(options, line);
      if (picked === undefined) return again(draft, `pick 1-${options.length} (or type the option)`);
      return sendChecked(draft, picked);
    }
    case 'approval': {
      const result = submitApproval(draft.inquiry, draft.edits ?? {}, line);
      if (result.edit !== undefined) return moved(at(draft, { kind: 'edit', index: result.edit }));
      if (!result.send) return { draft, say: result.say };
      return { draft, say: result.say, send: result.send.response, extras: result.send.extras };
    }
    case 'edit': {
      const { edits, next } = submitEdit(draft.inquiry, draft.edits ?? {}, step.index, line);
      const step2: Step = next === undefined ? { kind: 'approval' } : { kind: 'edit', index: next };
      return moved({ ...draft, edits, step: step2 });
    }
    case 'field':
      return submitField(draft, step.index, line);
    case 'confirm':
      return submitConfirm(draft, line);
  }
}

/** `/back`: the previous form field (from the summary, the last one). */
export function back(draft: Draft): DraftResult {
  const { step } = draft;
  if (step.kind === 'confirm')
    return moved(at(draft, { kind: 'field', index: questionsOf(draft).length - 1 }));
  if (step.kind === 'field' && step.index > 0)
    return moved(at(draft, { kind: 'field', index: step.index - 1 }));
  return again(draft, 'nothing to go back to');
}
