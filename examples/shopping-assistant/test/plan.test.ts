import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/catalogue/load.js';
import { candidatesFor, stockIn } from '../src/planner/candidates.js';
import type { Facts } from '../src/planner/facts.js';
import { parseRequest } from '../src/planner/parse-request.js';
import { nextStep } from '../src/planner/plan.js';
import { ANY_COLOUR, NO_LIMIT } from '../src/planner/questions.js';
import { product } from './fixtures.js';

const catalogue = await loadCatalogue();

describe('rounds: one question at a time', () => {
  const request = parseRequest('I need new running shoes', catalogue);

  it('asks size, then colour, then budget, each with options from what is still on the shelf', () => {
    const first = nextStep('rounds', catalogue, request, request.facts);
    expect(first.kind === 'ask' && first.slots).toEqual(['size']);
    if (first.kind !== 'ask') throw new Error('expected a question');
    expect(first.draft.options).toContain('42');
    expect(first.draft.options).toContain(first.draft.proposed);

    const afterSize: Facts = { ...request.facts, size: { value: '37', source: 'customer' } };
    const second = nextStep('rounds', catalogue, request, afterSize);
    if (second.kind !== 'ask') throw new Error('expected a question');
    expect(second.slots).toEqual(['colour']);
    const shoesIn37 = candidatesFor(catalogue, request, afterSize);
    expect(shoesIn37.every((p) => stockIn(p, '37') > 0)).toBe(true);
    // Only colours someone can actually buy in size 37, plus "any colour".
    expect(new Set(second.draft.options)).toEqual(new Set([...shoesIn37.map((p) => p.colour), ANY_COLOUR]));
    expect(second.draft.options.at(-1)).toBe(ANY_COLOUR);

    const afterColour: Facts = { ...afterSize, colour: { value: null, source: 'customer' } };
    const third = nextStep('rounds', catalogue, request, afterColour);
    if (third.kind !== 'ask') throw new Error('expected a question');
    expect(third.slots).toEqual(['budget']);
    expect(third.draft.options.at(-1)).toBe(NO_LIMIT);
    const cheapest = Math.min(...shoesIn37.map((p) => p.price));
    expect(Number(third.draft.options[0]?.replace(/\D/g, ''))).toBeGreaterThanOrEqual(cheapest);

    const done: Facts = { ...afterColour, budget: { value: 150, source: 'customer' } };
    expect(nextStep('rounds', catalogue, request, done).kind).toBe('search');
  });

  it('asks what kind of item first when the request only names a department', () => {
    const vague = parseRequest('some shoes for my husband', catalogue);
    for (const style of ['rounds', 'form'] as const) {
      const step = nextStep(style, catalogue, vague, vague.facts);
      if (step.kind !== 'ask') throw new Error('expected a question');
      expect(step.slots).toEqual(['type']);
      expect(step.draft.options).toContain('hiking boots');
      expect(step.draft.options).not.toContain('dress');
    }
  });

  it('does not ask what the catalogue leaves no choice about', () => {
    const only = [
      product({ id: 'SKU-0001', colour: 'red', price: 100, stock: { '42': 3 }, sold: { '42': 9 } }),
      product({ id: 'SKU-0002', colour: 'red', price: 110, stock: { '42': 1 }, sold: { '42': 4 } }),
    ];
    const request = parseRequest('running shoes', only);
    expect(nextStep('rounds', only, request, request.facts).kind).toBe('search');
  });
});

describe('form: one structured form', () => {
  it('asks every missing fact at once, proposing the size most bought for this item', () => {
    const shelf = [
      product({
        id: 'SKU-0001',
        colour: 'red',
        price: 60,
        stock: { '40': 1, '41': 1, '42': 0 },
        sold: { '40': 5, '41': 50, '42': 900 },
      }),
      product({
        id: 'SKU-0002',
        colour: 'blue',
        price: 150,
        stock: { '40': 1, '41': 1, '42': 4 },
        sold: { '40': 5, '41': 10, '42': 20 },
      }),
    ];
    const request = parseRequest('running shoes', shelf);
    const step = nextStep('form', shelf, request, request.facts);
    if (step.kind !== 'form') throw new Error('expected a form');
    expect(step.form.questions.map((q) => [q.id, q.kind])).toEqual([
      ['size', 'choice'],
      ['colour', 'choice'],
      ['budget', 'number'],
    ]);
    // 42 sold most, but mostly in the red pair that is sold out in 42: only sizes on the shelf count.
    expect(step.form.defaults).toEqual({ size: '41', colour: ANY_COLOUR, budget: 150 });
    expect(step.form.questions[0]?.options).toEqual(['40', '41', '42']);
    expect(step.form.questions[1]?.options).toEqual(['blue', 'red', ANY_COLOUR]);
  });

  it('skips the form when the request already said everything', () => {
    const request = parseRequest('a navy blue hoodie, size L, under 80 euros', catalogue);
    expect(nextStep('form', catalogue, request, request.facts).kind).toBe('search');
  });
});

describe('when the request rules out everything', () => {
  it('still asks the size over what the search will offer instead (over budget)', () => {
    const request = parseRequest('a rain jacket for my wife, under 50 euros', catalogue);
    expect(candidatesFor(catalogue, request, request.facts)).toEqual([]);
    const step = nextStep('rounds', catalogue, request, request.facts);
    if (step.kind !== 'ask') throw new Error('expected a question');
    expect(step.slots).toEqual(['size']);
    expect(step.candidates.every((p) => p.type === 'rain jacket' && p.price > 50)).toBe(true);
  });
});
