import type { Product } from '../catalogue/schema.js';
import { coloursOf, pricesSpread, sizesInStock } from './candidates.js';
import { type Facts, SLOTS, type Slot } from './facts.js';

/**
 * The slots still worth asking about, in asking order. A slot is skipped when the customer already
 * said it, or when the catalogue leaves no real choice (one size in stock, one colour, prices close).
 */
export function missingSlots(candidates: Product[], facts: Facts): Slot[] {
  const choice: Record<Slot, () => boolean> = {
    type: () => new Set(candidates.map((p) => p.type)).size > 1,
    size: () => sizesInStock(candidates).length > 1,
    colour: () => coloursOf(candidates).length > 1,
    budget: () => pricesSpread(candidates),
  };
  return SLOTS.filter((slot) => facts[slot] === undefined && choice[slot]());
}
