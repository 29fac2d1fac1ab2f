import type { Catalogue, Product } from '../catalogue/schema.js';
import { candidatesFor, fitsRequest, fitsSlot, stockIn, totalSold } from './candidates.js';
import type { Facts, ShoppingRequest, Slot } from './facts.js';

/** One narrowing step of the search, for the transcript ("in size 42: 9"). */
export interface SearchStep {
  label: string;
  remaining: number;
}

export interface SearchOutcome {
  steps: SearchStep[];
  /** Best first; every one fits all facts not listed in `relaxed`. */
  ranked: Product[];
  /** Facts dropped, in order, because nothing fitted them all (budget first, then colour). */
  relaxed: Slot[];
}

const STEP_LABELS: Record<Slot, (value: string | number) => string> = {
  type: (v) => `${v}`,
  size: (v) => `size ${v} in stock`,
  colour: (v) => `in ${v}`,
  budget: (v) => `at most €${v}`,
};

/** Rank: rating, then how well it sells, then the features asked for, then stock in the size. */
function score(product: Product, request: ShoppingRequest, facts: Facts): number {
  const featureHits = request.features.filter((f) => product.features.includes(f)).length;
  const size = facts.size?.value;
  const stock = typeof size === 'string' ? Math.min(stockIn(product, size), 5) : 0;
  return featureHits * 3 + product.rating * 2 + Math.log10(1 + totalSold(product)) + stock * 0.1;
}

/** Best first; one colourway of each model before a second colourway of any, so picks differ. */
function rank(products: Product[], request: ShoppingRequest, facts: Facts): Product[] {
  const sorted = [...products].sort(
    (a, b) =>
      score(b, request, facts) - score(a, request, facts) || a.price - b.price || a.id.localeCompare(b.id),
  );
  const seen = new Set<string>();
  const firsts: Product[] = [];
  const repeats: Product[] = [];
  for (const p of sorted) {
    const model = `${p.brand} ${p.name}`;
    (seen.has(model) ? repeats : firsts).push(p);
    seen.add(model);
  }
  return [...firsts, ...repeats];
}

/**
 * Searches the catalogue with every fact, narrating each step. When nothing fits, it drops the budget,
 * then the colour (never the size: it only sells what is on the shelf), and says which it dropped.
 */
export function search(catalogue: Catalogue, request: ShoppingRequest, facts: Facts): SearchOutcome {
  const steps: SearchStep[] = [{ label: 'catalogue', remaining: catalogue.length }];
  let pool = catalogue.filter((p) => fitsRequest(p, request));
  if (request.department || request.audience) {
    const label = `${request.department ?? 'everything'}${request.audience ? ` for ${request.audience}` : ''}`;
    steps.push({ label, remaining: pool.length });
  }
  for (const slot of ['type', 'size', 'colour', 'budget'] as const) {
    const value = facts[slot]?.value;
    if (value === undefined || value === null) continue;
    pool = pool.filter((p) => fitsSlot(p, slot, facts));
    steps.push({ label: STEP_LABELS[slot](value), remaining: pool.length });
  }
  const relaxed: Slot[] = [];
  for (const slot of ['budget', 'colour'] as const) {
    if (pool.length > 0) break;
    if (facts[slot]?.value === undefined || facts[slot]?.value === null) continue;
    relaxed.push(slot);
    pool = candidatesFor(catalogue, request, facts, relaxed);
    steps.push({ label: `without the ${slot} limit`, remaining: pool.length });
  }
  return { steps, ranked: rank(pool, request, facts), relaxed };
}
