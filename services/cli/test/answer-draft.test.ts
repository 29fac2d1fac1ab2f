import { describe, expect, it } from 'vitest';
import {
  back,
  type Draft,
  type DraftResult,
  startDraft,
  stepIntro,
  stepLabel,
  submitLine,
} from '../src/answer/draft.js';
import { FORM, inquiry } from './answer-fixtures.js';

/** Types each line in turn; returns every result. */
function typeLines(draft: Draft, lines: string[]): DraftResult[] {
  const results: DraftResult[] = [];
  let current = draft;
  for (const line of lines) {
    const result = submitLine(current, line);
    results.push(result);
    current = result.draft;
  }
  return results;
}
const last = <T>(items: T[]): T => items[items.length - 1] as T;

describe('answering one inquiry from the keyboard', () => {
  it('a text question: the typed line is the answer; a blank one is refused by the protocol rule', () => {
    const draft = startDraft(inquiry({ question: 'What should I call the file?' }));
    expect(stepLabel(draft)).toBe('answer');
    const [blank, typed] = typeLines(draft, ['  ', 'report.pdf  ']);
    expect(blank).toMatchObject({ say: ['! the answer is empty'] });
    expect(blank?.send).toBeUndefined();
    expect(typed?.send).toBe('report.pdf');
  });

  it('a prefilled answer is sent by Enter alone; a suggestion says to check it', () => {
    const prefilled = startDraft(inquiry({ defaultAnswer: 'Berlin' }));
    expect(stepIntro(prefilled)).toContain('Prefilled: Berlin. Enter alone sends it.');
    expect(submitLine(prefilled, '').send).toBe('Berlin');
    expect(submitLine(prefilled, 'Paris').send).toBe('Paris');
    const suggested = startDraft(inquiry({ suggestedAnswer: 'Rome' }));
    expect(stepIntro(suggested).join('\n')).toContain('Suggested answer (check it): Rome');
  });

  it('options: pick by number or by name; a wrong pick names the range and sends nothing', () => {
    const draft = startDraft(inquiry({ options: ['Red', 'Blue', 'Green'] }));
    expect(stepIntro(draft)[0]).toBe('Pick 1-3 (or type the option).');
    expect(submitLine(draft, '2').send).toBe('Blue');
    expect(submitLine(draft, 'green').send).toBe('Green');
    const wrong = submitLine(draft, '9');
    expect(wrong.send).toBeUndefined();
    expect(wrong.say).toEqual(['! pick 1-3 (or type the option)']);
  });

  it('options named by numbers: typing 42 picks "42", not the 42nd', () => {
    const sizes = Array.from({ length: 11 }, (_, i) => String(36 + i));
    const draft = startDraft(inquiry({ options: sizes }));
    expect(submitLine(draft, '42').send).toBe('42');
    expect(submitLine(draft, '2').send).toBe('37');
  });

  it('an approval takes approve / reject (or a / r) and nothing else', () => {
    const draft = startDraft(
      inquiry({ kind: 'approval', action: { server: 'billing', tool: 'delete', arguments: { ids: [1] } } }),
    );
    expect(submitLine(draft, 'a').send).toBe('approve');
    expect(submitLine(draft, 'REJECT').send).toBe('reject');
    expect(submitLine(draft, 'yes please')).toMatchObject({ say: ['! type approve or reject (a / r)'] });
  });

  it('a form, field by field: validation per field, required fields, prefill kept, then a summary', () => {
    const draft = startDraft(inquiry({ questions: FORM, format: 'form', defaultAnswer: { size: 'M' } }));
    expect(stepIntro(draft)).toEqual([
      '(1/5) Size [pick 1-3, required]',
      '    1) S',
      '    2) M',
      '    3) L',
      '    now: M (Enter keeps it, - clears it)',
    ]);
    const results = typeLines(draft, ['', '1,9', '1,3', '', 'forty', '40', 'maybe', 'y', '', '']);
    expect(results.map((r) => r.say.filter((l) => l.startsWith('!')))).toEqual([
      [],
      ['! "9" is not one of 1-3'],
      [],
      ['! an answer is required'],
      ['! enter a number'],
      [],
      ['! answer y or n'],
      [],
      [],
      [],
    ]);
    const summary = results[8]?.say ?? [];
    expect(summary).toContain('  colour: red, green');
    expect(summary).toContain('  note: (blank)');
    expect(stepLabel(results[8]!.draft)).toBe('send?');
    // The blank optional note is left out of the response, as the web form does.
    expect(last(results).send).toEqual({ size: 'M', colour: ['red', 'green'], budget: 40, gift: true });
  });

  it('"-" clears a prefilled optional field; a required one cannot be cleared', () => {
    const draft = startDraft(
      inquiry({ questions: FORM, format: 'form', defaultAnswer: { size: 'S', note: 'hi', budget: 10 } }),
    );
    const results = typeLines(draft, ['-', '', '', '', '', '-', '']);
    expect(results[0]?.say).toEqual(['! an answer is required']);
    const sent = typeLines(draft, ['', '', '', '', '-', 'y']);
    expect(last(sent).send).toEqual({ size: 'S', budget: 10 });
  });

  it('/back goes to the previous field; "n" at the summary starts over with the values kept', () => {
    const draft = startDraft(inquiry({ questions: FORM.slice(0, 2), format: 'form' }));
    const [, atColour] = typeLines(draft, ['3', '']).map((r) => r.draft);
    expect(stepLabel(atColour!)).toBe('send?');
    const backed = back(atColour!);
    expect(stepLabel(backed.draft)).toBe('colour');
    expect(stepLabel(back(backed.draft).draft)).toBe('size');
    expect(back(back(backed.draft).draft).say).toEqual(['! nothing to go back to']);
    const over = submitLine(atColour!, 'n');
    expect(stepLabel(over.draft)).toBe('size');
    expect(stepIntro(over.draft)).toContain('    now: L (Enter keeps it, - clears it)');
  });

  it('a suggested form answer fills the fields and is labelled as a suggestion', () => {
    const draft = startDraft(inquiry({ questions: FORM, format: 'form', suggestedAnswer: { size: 'L' } }));
    expect(stepIntro(draft)).toContain('    suggested: L (Enter keeps it, - clears it)');
  });
});
