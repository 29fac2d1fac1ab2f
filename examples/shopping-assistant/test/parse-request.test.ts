import { describe, expect, it } from 'vitest';
import { loadCatalogue } from '../src/catalogue/load.js';
import { parseBudget, parseRequest, parseSize } from '../src/planner/parse-request.js';

const catalogue = await loadCatalogue();
const facts = (text: string) =>
  Object.fromEntries(Object.entries(parseRequest(text, catalogue).facts).map(([slot, f]) => [slot, f.value]));

describe('reading a request', () => {
  it('finds the kind of item, longest phrase first', () => {
    expect(facts('I need new running shoes')).toEqual({ type: 'running shoes' });
    expect(facts('trail running shoes for the alps')).toEqual({ type: 'trail running shoes' });
    expect(facts('a puffer for winter')).toEqual({ type: 'down jacket' });
    expect(facts('a waterproof jacket')).toEqual({ type: 'rain jacket' });
  });

  it('reads size, colour and budget in the forms customers write them', () => {
    expect(facts('a navy blue hoodie, size L, under 80 euros')).toEqual({
      type: 'hoodie',
      colour: 'navy',
      size: 'L',
      budget: 80,
    });
    expect(facts('black jeans W32 max €120')).toEqual({
      type: 'jeans',
      colour: 'black',
      size: 'W32',
      budget: 120,
    });
    expect(facts('grey chinos 34 waist')).toEqual({ type: 'chinos', colour: 'grey', size: 'W34' });
    expect(facts('sneakers in any colour, EU 42')).toEqual({ type: 'sneakers', colour: null, size: '42' });
  });

  it('keeps hints that are not slots: department, audience, features', () => {
    const request = parseRequest('some waterproof shoes for my husband', catalogue);
    expect(request.facts).toEqual({});
    expect(request).toMatchObject({ department: 'shoes', audience: 'men', features: ['waterproof'] });
    expect(parseRequest('a dress for my wife', catalogue).audience).toBe('women');
    expect(parseRequest("women's loafers", catalogue).audience).toBe('women');
  });

  it('does not mistake other numbers for a size or a budget', () => {
    expect(parseSize('for my 10 km runs')).toBeUndefined();
    expect(parseSize('size 99')).toBeUndefined();
    expect(parseBudget('for my 10 km runs')).toBeUndefined();
    expect(parseBudget('$60 tops')).toBe(60);
    expect(parseBudget('up to 99,50 eur')).toBe(99.5);
  });
});
