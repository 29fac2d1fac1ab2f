import type { Inquiry } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import { createLocalDecider, recheck } from '../src/index.js';
import { approval, inquiry } from '../src/testing/fixtures.js';

const decider = createLocalDecider();
const decide = (i: Inquiry, strategy: Parameters<typeof decider.decide>[0]['strategy'], seed?: string) =>
  decider.decide({
    inquiry: i,
    trigger: 'service-timer',
    strategy,
    budgetMs: 1000,
    ...(seed ? { seed } : {}),
  });

describe('fail_closed', () => {
  it('rejects an approval and says nothing was approved', async () => {
    const d = await decide(approval(), 'fail_closed');
    expect(d).toMatchObject({ strategy: 'fail_closed', requested: 'fail_closed', answer: 'reject' });
    expect(d.rationale).toMatch(/nothing was approved/);
  });

  it('leaves a question unanswered', async () => {
    const d = await decide(inquiry(), 'fail_closed');
    expect(d.answer).toBeUndefined();
    expect(d.strategy).toBe('fail_closed');
  });
});

describe('default_answer', () => {
  it("uses the agent's default answer", async () => {
    const d = await decide(inquiry({ defaultAnswer: 'M', options: ['S', 'M'] }), 'default_answer');
    expect(d).toMatchObject({ strategy: 'default_answer', answer: 'M' });
    expect(d.rationale).toMatch(/default answer/);
  });

  it("fills a form from its questions' defaults", async () => {
    const form = inquiry({
      format: 'form',
      questions: [
        { id: 'size', prompt: 'Size?', kind: 'choice', options: ['S', 'M'], default: 'S' },
        { id: 'gift', prompt: 'Gift wrap?', kind: 'boolean', default: false },
      ],
    });
    expect((await decide(form, 'default_answer')).answer).toEqual({ size: 'S', gift: false });
  });

  it('uses a suggestion, saying it was machine-made', async () => {
    const d = await decide(inquiry({ suggestedAnswer: 'blue' }), 'default_answer');
    expect(d.answer).toBe('blue');
    expect(d.rationale).toMatch(/machine-made/);
  });

  it('fails closed when there is nothing to use', async () => {
    const d = await decide(inquiry(), 'default_answer');
    expect(d).toMatchObject({ strategy: 'fail_closed', requested: 'default_answer' });
    expect(d.rationale).toMatch(/no default answer/);
  });

  it('a default "approve" on an approval still has to pass the gate', async () => {
    expect(
      await decide(approval({ defaultAnswer: 'approve', confidence: 0.5 }), 'default_answer'),
    ).toMatchObject({
      strategy: 'fail_closed',
      answer: 'reject',
    });
    expect(
      await decide(approval({ defaultAnswer: 'approve', confidence: 0.8 }), 'default_answer'),
    ).toMatchObject({
      strategy: 'default_answer',
      answer: 'approve',
    });
  });
});

describe('random', () => {
  const sizes = inquiry({ options: ['XS', 'S', 'M', 'L', 'XL'] });

  it('picks one of the options; the same seed picks the same one, and the seed is in the rationale', async () => {
    const first = await decide(sizes, 'random', 'seed-1');
    const again = await decide(sizes, 'random', 'seed-1');
    expect(sizes.options).toContain(first.answer);
    expect(again.answer).toBe(first.answer);
    expect(first.rationale).toContain('seed "seed-1"');
    const picks = new Set<unknown>();
    for (let i = 0; i < 40; i++) picks.add((await decide(sizes, 'random', `s${i}`)).answer);
    expect(picks.size).toBeGreaterThan(2);
  });

  it('seeds with the inquiry id when no seed is given', async () => {
    const d = await decide(sizes, 'random');
    expect(d.rationale).toContain(`seed "${sizes.inquiryId}"`);
  });

  it('fills the choice questions of a form', async () => {
    const form = inquiry({
      format: 'form',
      questions: [
        { id: 'colour', prompt: 'Colour?', kind: 'choice', options: ['red', 'blue'], required: true },
        { id: 'extras', prompt: 'Extras?', kind: 'multi', options: ['bag', 'box'] },
      ],
    });
    const answer = (await decide(form, 'random')).answer as Record<string, unknown>;
    expect(['red', 'blue']).toContain(answer.colour);
    expect(answer.extras).toHaveLength(1);
  });

  it('fails closed without options, and never decides an approval', async () => {
    expect((await decide(inquiry(), 'random')).strategy).toBe('fail_closed');
    expect(await decide(approval({ confidence: 1 }), 'random')).toMatchObject({
      strategy: 'fail_closed',
      answer: 'reject',
    });
  });
});

describe('approve (YOLO)', () => {
  it('approves a non-critical approval at confidence 0.7', async () => {
    const d = await decide(approval({ confidence: 0.7 }), 'approve');
    expect(d).toMatchObject({ strategy: 'approve', answer: 'approve', confidence: 0.7 });
    expect(d.rationale).toMatch(/No person approved this/);
  });

  it.each([
    ['below the threshold', { confidence: 0.69 }, /below 0.7/],
    ['without a confidence', {}, /no confidence/],
    ['on a critical inquiry', { confidence: 1, critical: true }, /critical/],
  ])('is overridden by the gate %s', async (_name, overrides, reason) => {
    const d = await decide(approval(overrides), 'approve');
    expect(d).toMatchObject({ strategy: 'fail_closed', requested: 'approve', answer: 'reject' });
    expect(d.rationale).toMatch(reason);
  });
});

describe('agent without a model (rule-based)', () => {
  it('answers with the one option the context names', async () => {
    const d = await decide(
      inquiry({ options: ['S', 'M', 'L'], context: 'Last order: size M, blue.' }),
      'agent',
    );
    expect(d).toMatchObject({ strategy: 'agent', answer: 'M' });
  });

  it('asks for a new inquiry when the context is not enough', async () => {
    const d = await decide(inquiry({ options: ['S', 'M', 'L'], context: 'no idea' }), 'agent');
    expect(d.answer).toBeUndefined();
    expect(d.rationale).toMatch(/new inquiry is needed/);
  });

  it('rejects an approval it cannot judge, even with a high confidence', async () => {
    const d = await decide(approval({ confidence: 0.95 }), 'agent');
    expect(d).toMatchObject({ strategy: 'agent', answer: 'reject' });
  });
});

describe('recheck of a decision from elsewhere', () => {
  it('replaces an approval past the gate with fail_closed', () => {
    const forged = {
      strategy: 'agent' as const,
      requested: 'agent' as const,
      answer: 'approve',
      rationale: 'trust me',
      latencyMs: 5,
    };
    expect(recheck(approval({ critical: true }), { ...forged, confidence: 1 })).toMatchObject({
      strategy: 'fail_closed',
      answer: 'reject',
      latencyMs: 5,
    });
    expect(recheck(approval(), { ...forged, strategy: 'fail_closed' })).toMatchObject({ answer: 'reject' });
  });

  it('strips a machine answer to a critical question, whichever decider sent it', () => {
    const remote = {
      strategy: 'default_answer' as const,
      requested: 'default_answer' as const,
      answer: 'yes',
      rationale: 'the default',
      latencyMs: 3,
    };
    const checked = recheck(inquiry({ critical: true, defaultAnswer: 'yes' }), remote);
    expect(checked).toMatchObject({ strategy: 'fail_closed', requested: 'default_answer' });
    expect(checked.answer).toBeUndefined();
    expect(checked.rationale).toMatch(/critical/);
  });
});
