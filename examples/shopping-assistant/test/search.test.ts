import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/catalogue/load.js';
import { stockIn } from '../src/planner/candidates.js';
import type { Facts } from '../src/planner/facts.js';
import { parseRequest } from '../src/planner/parse-request.js';
import { toRecommendation } from '../src/planner/recommend.js';
import { search } from '../src/planner/search.js';
import { product } from './fixtures.js';

const catalogue = await loadCatalogue();

describe('searching with the facts', () => {
  it('returns only products in the size (in stock), the colour and under the budget', () => {
    const request = parseRequest('running shoes', catalogue);
    const facts: Facts = {
      ...request.facts,
      size: { value: '42', source: 'customer' },
      colour: { value: 'black', source: 'customer' },
      budget: { value: 150, source: 'customer' },
    };
    const found = search(catalogue, request, facts);
    expect(found.relaxed).toEqual([]);
    expect(found.ranked.length).toBeGreaterThan(0);
    for (const p of found.ranked) {
      expect(p.type).toBe('running shoes');
      expect(stockIn(p, '42')).toBeGreaterThan(0);
      expect(p.colour).toBe('black');
      expect(p.price).toBeLessThanOrEqual(150);
    }
    expect(found.steps.map((s) => s.label)).toEqual([
      'catalogue',
      'shoes',
      'running shoes',
      'size 42 in stock',
      'in black',
      'at most €150',
    ]);
    expect(found.steps.at(-1)?.remaining).toBe(found.ranked.length);
  });

  it('ranks features the customer asked for first', () => {
    const shelf = [
      product({ id: 'SKU-0001', rating: 4.9 }),
      product({ id: 'SKU-0002', rating: 4.0, features: ['waterproof'] }),
    ];
    const found = search(shelf, parseRequest('waterproof running shoes', shelf), {});
    expect(found.ranked.map((p) => p.id)).toEqual(['SKU-0002', 'SKU-0001']);
  });

  it('drops the budget, then the colour, when nothing fits, and never the size', () => {
    const shelf = [
      product({ id: 'SKU-0001', colour: 'red', price: 200, stock: { '42': 1 }, sold: { '42': 1 } }),
      product({
        id: 'SKU-0002',
        colour: 'blue',
        price: 50,
        stock: { '42': 0, '43': 4 },
        sold: { '42': 1, '43': 1 },
      }),
    ];
    const request = parseRequest('running shoes', shelf);
    const facts: Facts = {
      size: { value: '42', source: 'customer' },
      colour: { value: 'red', source: 'customer' },
      budget: { value: 100, source: 'customer' },
    };
    const overBudget = search(shelf, request, facts);
    expect(overBudget.relaxed).toEqual(['budget']);
    expect(overBudget.ranked.map((p) => p.id)).toEqual(['SKU-0001']);
    expect(toRecommendation(shelf[0]!, facts, overBudget.relaxed).reasons).toContain(
      'over your €100 budget: nothing fitted it',
    );

    const blue = search(shelf, request, { ...facts, colour: { value: 'blue', source: 'customer' } });
    expect(blue.relaxed).toEqual(['budget', 'colour']);
    expect(blue.ranked.map((p) => p.id)).toEqual(['SKU-0001']);

    const noSize = search(shelf, request, { size: { value: '44', source: 'customer' } });
    expect(noSize.ranked).toEqual([]);
  });
});

describe('ranking', () => {
  it('offers different models before a second colourway of the same one', () => {
    const shelf = [
      product({ id: 'SKU-0001', name: 'Tempo', rating: 4.9, colour: 'red' }),
      product({ id: 'SKU-0002', name: 'Tempo', rating: 4.9, colour: 'blue' }),
      product({ id: 'SKU-0003', name: 'Swift', rating: 4.0 }),
    ];
    const found = search(shelf, parseRequest('running shoes', shelf), {});
    expect(found.ranked.map((p) => p.id)).toEqual(['SKU-0001', 'SKU-0003', 'SKU-0002']);
  });
});
