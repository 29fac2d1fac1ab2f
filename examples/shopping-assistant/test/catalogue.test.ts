import { describe, expect, it } from 'vitest';
import { CATALOGUE_SEED, generateCatalogue } from '../src/catalogue/generate.js';
import { loadCatalogue } from '../src/catalogue/load.js';

describe('the shipped catalogue', () => {
  it('is exactly what the seeded generator makes, so it can be regenerated and reviewed', async () => {
    const committed = await loadCatalogue();
    expect(committed).toEqual(generateCatalogue(CATALOGUE_SEED));
    expect(generateCatalogue(CATALOGUE_SEED + 1)).not.toEqual(committed);
  });

  it('holds a few hundred shoes and apparel items with sizes, colours, prices and stock per size', async () => {
    const catalogue = await loadCatalogue();
    expect(catalogue.length).toBeGreaterThanOrEqual(200);
    expect(catalogue.length).toBeLessThanOrEqual(500);
    expect(new Set(catalogue.map((p) => p.department))).toEqual(new Set(['shoes', 'apparel']));
    expect(new Set(catalogue.map((p) => p.type)).size).toBeGreaterThanOrEqual(12);
    expect(new Set(catalogue.map((p) => p.colour)).size).toBeGreaterThanOrEqual(10);
    expect(new Set(catalogue.map((p) => p.id)).size).toBe(catalogue.length);
    for (const p of catalogue) {
      expect(Object.keys(p.stock).length, p.id).toBeGreaterThanOrEqual(5);
      expect(p.price, p.id).toBeGreaterThan(10);
    }
    const sizes = catalogue.flatMap((p) => Object.entries(p.stock));
    const soldOut = sizes.filter(([, units]) => units === 0).length;
    // Realistic shelves: most sizes in stock, some sold out.
    expect(soldOut / sizes.length).toBeGreaterThan(0.05);
    expect(soldOut / sizes.length).toBeLessThan(0.4);
  });

  it('says which file and field is wrong when the catalogue is broken', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const path = join(await mkdtemp(join(tmpdir(), 'catalogue-')), 'bad.json');
    await writeFile(path, JSON.stringify([{ ...generateCatalogue()[0], price: -5 }]));
    await expect(loadCatalogue(path)).rejects.toThrow(/bad\.json: 0\.price/);
  });
});
