import { describe, expect, it } from 'vitest';
import { APPROVAL_THRESHOLD, approvalGate, failClosed, finalize } from '../src/index.js';
import { approval } from '../src/testing/fixtures.js';

describe('the approval gate', () => {
  it('passes exactly 0.7 and anything above it up to 1', () => {
    expect(APPROVAL_THRESHOLD).toBe(0.7);
    for (const confidence of [0.7, 0.70001, 0.9, 1]) {
      expect(approvalGate(false, confidence)).toEqual({ ok: true, confidence });
    }
  });

  it('refuses anything below 0.7, naming the value', () => {
    for (const confidence of [0.6999999, 0.5, 0]) {
      const gate = approvalGate(false, confidence);
      expect(gate).toEqual({ ok: false, reason: `confidence ${confidence} is below 0.7` });
    }
  });

  it('never approves a critical inquiry, whatever the confidence', () => {
    for (const confidence of [1, 0.7, undefined]) {
      expect(approvalGate(true, confidence)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/critical/),
      });
    }
  });

  it.each([
    ['missing', undefined, /no confidence/],
    ['null', null, /no confidence/],
    ['NaN', Number.NaN, /NaN/],
    ['true', true, /boolean/],
    ['false', false, /boolean/],
    ['a numeric string', '0.9', /string/],
    ['an object', { value: 0.9 }, /object/],
    ['below 0', -0.1, /outside 0\.\.1/],
    ['above 1', 1.01, /outside 0\.\.1/],
    ['Infinity', Number.POSITIVE_INFINITY, /outside 0\.\.1/],
    ['-Infinity', Number.NEGATIVE_INFINITY, /outside 0\.\.1/],
  ])('refuses an invalid confidence: %s', (_name, confidence, reason) => {
    const gate = approvalGate(false, confidence);
    expect(gate.ok).toBe(false);
    if (!gate.ok) expect(gate.reason).toMatch(reason);
  });
});

describe('the gate inside every decision', () => {
  it('turns a refused approval into a fail-closed reject that says why', () => {
    const verdict = finalize(approval({ confidence: 0.69 }), 'approve', {
      answer: 'approve',
      rationale: 'yolo',
      confidence: 0.69,
    });
    expect(verdict).toMatchObject({ strategy: 'fail_closed', answer: 'reject' });
    expect(verdict.rationale).toMatch(
      /approve would approve, but confidence 0.69 is below 0.7.*nothing was approved/,
    );
  });

  it('lets a confident, non-critical approval through', () => {
    const verdict = finalize(approval(), 'agent', { answer: 'approve', rationale: 'clear', confidence: 0.7 });
    expect(verdict).toMatchObject({ strategy: 'agent', answer: 'approve', confidence: 0.7 });
  });

  it('fails closed on an answer that does not fit the inquiry', () => {
    const verdict = finalize(approval(), 'agent', { answer: 'sure', rationale: 'x', confidence: 1 });
    expect(verdict).toMatchObject({ strategy: 'fail_closed', answer: 'reject' });
    expect(verdict.rationale).toMatch(/unfit answer/);
  });

  it('fail_closed never approves: approvals are rejected, questions get no answer', () => {
    expect(failClosed(approval(), 'agent', 'x').answer).toBe('reject');
    expect(failClosed({ ...approval(), kind: 'question' }, 'agent', 'x').answer).toBeUndefined();
  });
});
