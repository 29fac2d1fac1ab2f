import type { PendingInquiry } from '@hitl/client';
import { describe, expect, it } from 'vitest';
import { fieldMessage, fieldsOf, initialDraft, SINGLE, toResponse } from '../../src/terminal/form-values';

const base: PendingInquiry = {
  inquiryId: '01HX',
  question: 'Which shirt?',
  format: 'form',
  kind: 'question',
  critical: false,
  asker: { tokenSubject: 'shop' },
  createdAt: 0,
  deadlines: { deviceAt: 30_000, serviceAt: 50_000, clientAt: 90_000 },
  serverTime: 0,
  skewMs: 0,
  localDeviceAt: 30_000,
};
const form: PendingInquiry = {
  ...base,
  questions: [
    { id: 'size', prompt: 'Size', kind: 'choice', options: ['S', 'M', 'L'], required: true },
    { id: 'colour', prompt: 'Colours', kind: 'multi', options: ['red', 'blue'] },
    { id: 'budget', prompt: 'Budget', kind: 'number', required: true, default: 30 },
    { id: 'gift', prompt: 'Gift?', kind: 'boolean' },
    { id: 'note', prompt: 'Note', kind: 'text' },
  ],
};

describe('answer form values', () => {
  it('prefills question defaults, then the default answer; a suggestion is marked as one', () => {
    expect(initialDraft({ ...form, defaultAnswer: { size: 'M', gift: false } })).toEqual({
      draft: { size: 'M', colour: [], budget: '30', gift: false, note: '' },
      source: 'default',
    });
    expect(initialDraft({ ...form, suggestedAnswer: { colour: ['blue'] } }).source).toBe('suggested');
    expect(initialDraft({ ...base, format: 'text', suggestedAnswer: 'yes' })).toEqual({
      draft: { [SINGLE]: 'yes' },
      source: 'suggested',
    });
    // The asker's default wins over a later suggestion.
    expect(initialDraft({ ...base, defaultAnswer: 'a', suggestedAnswer: 'b' }).draft[SINGLE]).toBe('a');
  });

  it('builds the object the server expects, leaving blank optional fields out', () => {
    const result = toResponse(form, { size: 'L', colour: ['blue'], budget: ' 42.5 ', gift: true, note: '' });
    expect(result).toEqual({
      response: { size: 'L', colour: ['blue'], budget: 42.5, gift: true },
      problems: null,
    });
  });

  it('names each field the server would refuse, in words for a person', () => {
    const result = toResponse(form, { size: '', colour: [], budget: 'forty', gift: null, note: '' });
    expect(result.problems).toEqual({ size: 'An answer is required.', budget: 'Enter a number.' });
    const size = fieldsOf(form)[0]!;
    expect(fieldMessage(size, 'XL')).toBe('"XL" is not one of the options.');
    expect(fieldMessage({ ...size, kind: 'text', options: undefined }, 'x'.repeat(8193))).toMatch(
      /under 8192/,
    );
  });

  it('a single question is answered with a string; its options are enforced; blank is refused', () => {
    const choice = { ...base, format: 'text' as const, options: ['yes', 'no'] };
    expect(fieldsOf(choice)).toEqual([
      { id: SINGLE, prompt: '', kind: 'choice', options: ['yes', 'no'], required: true },
    ]);
    expect(toResponse(choice, { [SINGLE]: 'no' })).toEqual({ response: 'no', problems: null });
    expect(toResponse({ ...base, format: 'text' }, { [SINGLE]: '   ' }).problems).toEqual({
      [SINGLE]: 'An answer is required.',
    });
  });
});
