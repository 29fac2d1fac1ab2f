import { describe, expect, it } from 'vitest';
import { LIMITS, SendInquiryInputSchema } from '../src/index.js';
import { expectAccepted, expectNamesField, rejectionOf } from './zod-message.js';

const reject = (input: Record<string, unknown>) => rejectionOf(SendInquiryInputSchema, input);
const accept = (input: Record<string, unknown>) => expectAccepted(SendInquiryInputSchema, input);

const textQ = (id: string) => ({ id, prompt: `Prompt ${id}?`, kind: 'text' });

describe('send_inquiry input: question', () => {
  it('rejects an empty question, naming the field', () => {
    const message = reject({ question: '' });
    expectNamesField(message, 'question');
    expect(message).toContain('empty');
  });

  it('rejects a missing question', () => {
    expectNamesField(reject({}), 'question');
  });

  it(`accepts exactly ${LIMITS.questionChars} characters and rejects one more`, () => {
    expect(accept({ question: 'q'.repeat(8192) }).question).toHaveLength(8192);
    const message = reject({ question: 'q'.repeat(8193) });
    expectNamesField(message, 'question');
    expect(message).toContain('8192');
  });
});

describe('send_inquiry input: confidence', () => {
  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['true', true],
    ['"0.9"', '0.9'],
    ['-0.1', -0.1],
    ['1.1', 1.1],
    ['null', null],
  ])('rejects %s', (_label, confidence) => {
    expectNamesField(reject({ question: 'Deploy?', confidence }), 'confidence');
  });

  it.each([0, 0.7, 1])('accepts %s', (confidence) => {
    expect(accept({ question: 'Deploy?', confidence }).confidence).toBe(confidence);
  });
});

describe('send_inquiry input: questions (form)', () => {
  it.each(['choice', 'multi'])('rejects a %s question with no options', (kind) => {
    const message = reject({ question: 'Q', questions: [{ id: 'pick', prompt: 'Pick', kind }] });
    expectNamesField(message, 'questions.0.options');
    expect(message).toContain(`a ${kind} question needs options`);
  });

  it.each(['text', 'number', 'boolean'])('rejects options on a %s question', (kind) => {
    const message = reject({
      question: 'Q',
      questions: [{ id: 'a', prompt: 'A', kind, options: ['x', 'y'] }],
    });
    expectNamesField(message, 'questions.0.options');
  });

  it('rejects a duplicate question id, pointing at the second one', () => {
    const message = reject({ question: 'Q', questions: [textQ('a'), textQ('b'), textQ('a')] });
    expectNamesField(message, 'questions.2.id');
    expect(message).toContain('duplicate question id "a"');
    expect(message).not.toContain('questions.0.id');
  });

  it(`accepts ${LIMITS.questions} questions and rejects ${LIMITS.questions + 1}`, () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => textQ(`q${i}`));
    expect(accept({ question: 'Q', format: 'form', questions: many(50) }).questions).toHaveLength(50);
    expectNamesField(reject({ question: 'Q', questions: many(51) }), 'questions');
  });

  it('rejects an empty questions list', () => {
    expectNamesField(reject({ question: 'Q', questions: [] }), 'questions');
  });

  it.each([
    ['number', { kind: 'number', default: 'five' }],
    ['boolean', { kind: 'boolean', default: 'yes' }],
    ['text', { kind: 'text', default: 3 }],
    ['choice', { kind: 'choice', options: ['red', 'blue'], default: 'green' }],
    ['multi', { kind: 'multi', options: ['red', 'blue'], default: ['red', 'green'] }],
    ['multi given a string', { kind: 'multi', options: ['red', 'blue'], default: 'red' }],
  ])('rejects a default that does not fit a %s question', (_label, fields) => {
    const message = reject({ question: 'Q', questions: [{ id: 'a', prompt: 'A', ...fields }] });
    expectNamesField(message, 'questions.0.default');
  });

  it('accepts defaults that fit their kind', () => {
    const input = accept({
      question: 'Q',
      format: 'form',
      questions: [
        { id: 'n', prompt: 'N', kind: 'number', default: 3 },
        { id: 'b', prompt: 'B', kind: 'boolean', default: false },
        { id: 'c', prompt: 'C', kind: 'choice', options: ['red', 'blue'], default: 'blue' },
        { id: 'm', prompt: 'M', kind: 'multi', options: ['red', 'blue'], default: ['red'] },
      ],
    });
    expect(input.questions?.map((q) => q.default)).toEqual([3, false, 'blue', ['red']]);
  });

  it('rejects format "form" without questions', () => {
    const message = reject({ question: 'Fill this in', format: 'form' });
    expectNamesField(message, 'questions');
    expect(message).toContain('format "form" needs questions');
  });

  it('rejects top-level options alongside questions', () => {
    expectNamesField(reject({ question: 'Q', questions: [textQ('a')], options: ['x'] }), 'options');
  });
});

describe('send_inquiry input: context', () => {
  const limit = LIMITS.contextBytes;

  it('accepts a string context of exactly 32 KB and rejects one byte more', () => {
    expect(limit).toBe(32 * 1024);
    expect(accept({ question: 'Q', context: 'x'.repeat(limit) }).context).toHaveLength(limit);
    const message = reject({ question: 'Q', context: 'x'.repeat(limit + 1) });
    expectNamesField(message, 'context');
  });

  it('counts UTF-8 bytes, not characters', () => {
    // 'é' is two bytes: this is half the limit in characters but one byte over in size.
    const text = `${'é'.repeat(limit / 2)}x`;
    expect(text.length).toBeLessThan(limit);
    expectNamesField(reject({ question: 'Q', context: text }), 'context');
  });

  it('measures an object context as JSON and accepts exactly 32 KB', () => {
    const atLimit = { notes: 'x'.repeat(limit - '{"notes":""}'.length) };
    expect(JSON.stringify(atLimit)).toHaveLength(limit);
    expect(accept({ question: 'Q', context: atLimit }).context).toEqual(atLimit);

    const overLimit = { notes: `${atLimit.notes}x` };
    expectNamesField(reject({ question: 'Q', context: overLimit }), 'context');
  });

  it('rejects a context that is neither text nor an object', () => {
    expectNamesField(reject({ question: 'Q', context: 42 }), 'context');
    expectNamesField(reject({ question: 'Q', context: ['a'] }), 'context');
  });
});

describe('send_inquiry input: idempotencyKey and timeoutMs', () => {
  it(`accepts an idempotencyKey of ${LIMITS.idempotencyKeyChars} characters and rejects one more`, () => {
    expect(accept({ question: 'Q', idempotencyKey: 'k'.repeat(255) }).idempotencyKey).toHaveLength(255);
    expectNamesField(reject({ question: 'Q', idempotencyKey: 'k'.repeat(256) }), 'idempotencyKey');
  });

  it('rejects an empty idempotencyKey', () => {
    expectNamesField(reject({ question: 'Q', idempotencyKey: '' }), 'idempotencyKey');
  });

  it('rejects timeoutMs below 1000, and a fractional one, and accepts 1000', () => {
    expectNamesField(reject({ question: 'Q', timeoutMs: 999 }), 'timeoutMs');
    expectNamesField(reject({ question: 'Q', timeoutMs: 1500.5 }), 'timeoutMs');
    expect(accept({ question: 'Q', timeoutMs: 1000 }).timeoutMs).toBe(1000);
  });
});

describe('send_inquiry input: approvals and actions', () => {
  const action = { server: 'github', tool: 'delete_repo', arguments: { repo: 'acme/site' } };

  it('accepts an approval with an action, keeping the arguments verbatim', () => {
    const input = accept({ question: 'Delete acme/site?', kind: 'approval', action, critical: true });
    expect(input.action).toEqual(action);
  });

  it('rejects an approval with options', () => {
    const message = reject({ question: 'Delete?', kind: 'approval', options: ['yes', 'no'] });
    expectNamesField(message, 'kind');
    expect(message).toContain('options');
  });

  it('rejects an approval with questions', () => {
    expectNamesField(reject({ question: 'Delete?', kind: 'approval', questions: [textQ('a')] }), 'kind');
  });

  it.each([
    ['no kind', {}],
    ['kind question', { kind: 'question' }],
  ])('rejects an action with %s', (_label, fields) => {
    const message = reject({ question: 'Delete?', action, ...fields });
    expectNamesField(message, 'action');
    expect(message).toContain('approval');
  });

  it('rejects an action missing its tool', () => {
    const message = reject({ question: 'Delete?', kind: 'approval', action: { server: 'github' } });
    expectNamesField(message, 'action.tool');
  });
});

describe('send_inquiry input: defaultAnswer', () => {
  it('rejects a default answer that is not one of the options', () => {
    const message = reject({ question: 'Colour?', options: ['red', 'blue'], defaultAnswer: 'green' });
    expectNamesField(message, 'defaultAnswer');
    expect(message).toContain('"green" is not one of the options');
  });

  it('accepts a default answer that is one of the options', () => {
    expect(
      accept({ question: 'Colour?', options: ['red', 'blue'], defaultAnswer: 'blue' }).defaultAnswer,
    ).toBe('blue');
  });

  it('rejects a default answer for an approval other than approve or reject', () => {
    expectNamesField(
      reject({ question: 'Deploy?', kind: 'approval', defaultAnswer: 'yes' }),
      'defaultAnswer',
    );
    expect(accept({ question: 'Deploy?', kind: 'approval', defaultAnswer: 'reject' }).defaultAnswer).toBe(
      'reject',
    );
  });

  it('rejects a form default answer with a wrong type or an unknown id, naming the question', () => {
    const questions = [
      { id: 'count', prompt: 'How many?', kind: 'number' },
      { id: 'name', prompt: 'Name?', kind: 'text' },
    ];
    const wrongType = reject({ question: 'Q', format: 'form', questions, defaultAnswer: { count: 'three' } });
    expectNamesField(wrongType, 'defaultAnswer');
    expect(wrongType).toContain('count');

    const unknownId = reject({ question: 'Q', format: 'form', questions, defaultAnswer: { colour: 'red' } });
    expectNamesField(unknownId, 'defaultAnswer');
    expect(unknownId).toContain('colour');

    const asText = reject({ question: 'Q', format: 'form', questions, defaultAnswer: 'three' });
    expectNamesField(asText, 'defaultAnswer');
  });

  it('accepts a form default answer that fits', () => {
    const questions = [{ id: 'count', prompt: 'How many?', kind: 'number' }];
    const input = accept({ question: 'Q', format: 'form', questions, defaultAnswer: { count: 3 } });
    expect(input.defaultAnswer).toEqual({ count: 3 });
  });
});

describe('send_inquiry input: fallback', () => {
  it.each(['onTimeout', 'onRefusal'])('rejects an unknown %s strategy, naming it', (key) => {
    const message = reject({ question: 'Q', fallback: { [key]: 'coin_flip' } });
    expectNamesField(message, `fallback.${key}`);
  });

  it('rejects an unknown fallback property', () => {
    expectNamesField(reject({ question: 'Q', fallback: { onError: 'agent' } }), 'fallback');
  });

  it('accepts known strategies', () => {
    const input = accept({ question: 'Q', fallback: { onTimeout: 'agent', onRefusal: 'fail_closed' } });
    expect(input.fallback).toEqual({ onTimeout: 'agent', onRefusal: 'fail_closed' });
  });
});

describe('send_inquiry input: several problems', () => {
  it('names every bad field, not only the first', () => {
    const message = reject({ question: '', confidence: 2, timeoutMs: 10 });
    for (const field of ['question', 'confidence', 'timeoutMs']) expectNamesField(message, field);
  });
});
