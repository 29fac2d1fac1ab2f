import { describe, expect, it } from 'vitest';
import { LIMITS, prefillProblem, type ResponseShape, responseProblem } from '../src/index.js';

describe('responseProblem: approvals', () => {
  const approval: ResponseShape = { kind: 'approval' };

  it.each(['approve', 'reject'])('accepts "%s"', (answer) => {
    expect(responseProblem(approval, answer)).toBeNull();
  });

  it.each([['yes'], ['Approve'], [' approve'], [''], [true], [{ approve: true }], [undefined]])(
    'rejects %j',
    (answer) => {
      expect(responseProblem(approval, answer)).toMatch(/"approve" or "reject"/);
    },
  );

  it('ignores options for an approval: only approve or reject count', () => {
    expect(responseProblem({ kind: 'approval', options: ['ok'] }, 'ok')).not.toBeNull();
  });
});

describe('responseProblem: forms', () => {
  const form: ResponseShape = {
    kind: 'question',
    questions: [
      { id: 'env', kind: 'choice', options: ['staging', 'prod'], required: true },
      { id: 'regions', kind: 'multi', options: ['eu', 'us', 'ap'] },
      { id: 'replicas', kind: 'number' },
      { id: 'dryRun', kind: 'boolean', required: true },
      { id: 'note', kind: 'text' },
    ],
  };

  it('accepts a complete, well-typed answer', () => {
    const answer = { env: 'prod', regions: ['eu', 'ap'], replicas: 3, dryRun: false, note: 'go' };
    expect(responseProblem(form, answer)).toBeNull();
  });

  it('accepts an answer that leaves optional questions out', () => {
    expect(responseProblem(form, { env: 'staging', dryRun: true })).toBeNull();
  });

  it('treats false as an answer to a required yes/no question', () => {
    expect(responseProblem(form, { env: 'staging', dryRun: false })).toBeNull();
  });

  it('rejects a missing required answer, naming the question', () => {
    expect(responseProblem(form, { dryRun: true })).toBe('env: an answer is required');
    expect(responseProblem(form, { env: 'prod' })).toBe('dryRun: an answer is required');
  });

  it('rejects blank text for a required question', () => {
    const shape: ResponseShape = {
      kind: 'question',
      questions: [{ id: 'why', kind: 'text', required: true }],
    };
    expect(responseProblem(shape, { why: '' })).toBe('why: an answer is required');
    expect(responseProblem(shape, { why: '   ' })).toBe('why: an answer is required');
    expect(responseProblem(shape, { why: 'because' })).toBeNull();
  });

  it('rejects a required multi with nothing picked', () => {
    const shape: ResponseShape = {
      kind: 'question',
      questions: [{ id: 'tags', kind: 'multi', options: ['a', 'b'], required: true }],
    };
    expect(responseProblem(shape, { tags: [] })).toBe('tags: an answer is required');
    expect(responseProblem(shape, { tags: ['b'] })).toBeNull();
  });

  it('accepts an optional multi with nothing picked', () => {
    expect(responseProblem(form, { env: 'prod', dryRun: true, regions: [] })).toBeNull();
  });

  it('rejects an unknown question id', () => {
    expect(responseProblem(form, { env: 'prod', dryRun: true, colour: 'red' })).toBe(
      '"colour" is not a question of this form',
    );
  });

  it.each([
    ['a number as text', { replicas: '3' }, 'replicas'],
    ['a non-finite number', { replicas: Number.NaN }, 'replicas'],
    ['a boolean as text', { dryRun: 'true' }, 'dryRun'],
    ['text as a number', { note: 42 }, 'note'],
    ['a choice as a list', { env: ['prod'] }, 'env'],
    ['a multi as one string', { regions: 'eu' }, 'regions'],
  ])('rejects %s, naming the question', (_label, fields, id) => {
    const answer = { env: 'prod', dryRun: true, ...fields };
    expect(responseProblem(form, answer)).toMatch(new RegExp(`^${id}: `));
  });

  it('accepts a multi answer that is a subset of the options', () => {
    expect(responseProblem(form, { env: 'prod', dryRun: true, regions: ['us'] })).toBeNull();
  });

  it('rejects a multi answer outside the options, or with a choice twice', () => {
    expect(responseProblem(form, { env: 'prod', dryRun: true, regions: ['eu', 'mars'] })).toBe(
      'regions: "mars" is not one of the options',
    );
    expect(responseProblem(form, { env: 'prod', dryRun: true, regions: ['eu', 'eu'] })).toMatch(/^regions: /);
  });

  it('rejects a choice not in its options', () => {
    expect(responseProblem(form, { env: 'dev', dryRun: true })).toBe('env: "dev" is not one of the options');
  });

  it.each([['prod'], [['prod']], [null], [42]])(
    'rejects %j where an object keyed by question id belongs',
    (answer) => {
      expect(responseProblem(form, answer)).toBe('a form is answered with an object keyed by question id');
    },
  );
});

describe('responseProblem: a single question', () => {
  const withOptions: ResponseShape = { kind: 'question', options: ['blue', 'green'] };
  const freeText: ResponseShape = { kind: 'question' };

  it('accepts one of the options and rejects anything else', () => {
    expect(responseProblem(withOptions, 'green')).toBeNull();
    expect(responseProblem(withOptions, 'Green')).toBe('"Green" is not one of the options');
  });

  it('accepts free text without options', () => {
    expect(responseProblem(freeText, 'whatever you think')).toBeNull();
  });

  it.each(['', '   ', '\n\t'])('rejects empty text %j', (answer) => {
    expect(responseProblem(freeText, answer)).toBe('the answer is empty');
  });

  it(`accepts ${LIMITS.answerChars} characters and rejects one more`, () => {
    expect(responseProblem(freeText, 'a'.repeat(LIMITS.answerChars))).toBeNull();
    expect(responseProblem(freeText, 'a'.repeat(LIMITS.answerChars + 1))).toMatch(/over 8192 characters/);
  });

  it.each([[42], [true], [{ a: 'b' }], [undefined]])('rejects a non-text answer %j', (answer) => {
    expect(responseProblem(freeText, answer)).toBe('expected a text answer');
  });
});

describe('prefillProblem: a prefill may leave required questions empty', () => {
  const form: ResponseShape = {
    kind: 'question',
    questions: [
      { id: 'size', kind: 'choice', options: ['S', 'M'], required: true },
      { id: 'note', kind: 'text' },
    ],
  };

  it('accepts a prefill that leaves a required question empty, which an answer may not', () => {
    expect(prefillProblem(form, { note: 'gift' })).toBeNull();
    expect(responseProblem(form, { note: 'gift' })).toMatch(/size: an answer is required/);
  });

  it('still checks what the prefill does fill in', () => {
    expect(prefillProblem(form, { size: 'XL' })).toMatch(/size/);
    expect(prefillProblem(form, { colour: 'red' })).toMatch(/"colour" is not a question/);
    expect(prefillProblem({ kind: 'question', options: ['a', 'b'] }, 'c')).toMatch(/not one of the options/);
    expect(prefillProblem({ kind: 'approval' }, 'yes')).toMatch(/"approve" or "reject"/);
  });
});
