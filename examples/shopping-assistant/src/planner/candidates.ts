import type { Catalogue, Product } from '../catalogue/schema.js';
import { compareSizes } from '../catalogue/sizes.js';
import type { Facts, ShoppingRequest, Slot } from './facts.js';

/** Units on the shelf in `size` (0 when the product does not come in it). */
export const stockIn = (product: Product, size: string): number => product.stock[size] ?? 0;

const totalSold = (product: Product): number => Object.values(product.sold).reduce((a, b) => a + b, 0);

/** Whether a product fits one slot's fact (a slot with no fact, or "any", fits everything). */
export function fitsSlot(product: Product, slot: Slot, facts: Facts): boolean {
  const value = facts[slot]?.value;
  if (value === undefined || value === null) return true;
  switch (slot) {
    case 'type':
      return product.type === value;
    case 'size':
      return stockIn(product, String(value)) > 0;
    case 'colour':
      return product.colour === value;
    case 'budget':
      return product.price <= Number(value);
  }
}

/** Whether a product suits who and what the request is for (department, audience). */
export function fitsRequest(product: Product, request: ShoppingRequest): boolean {
  if (request.department && product.department !== request.department) return false;
  if (request.audience && request.audience !== 'unisex') {
    return product.audience === request.audience || product.audience === 'unisex';
  }
  return true;
}

/** The products that fit the request and every fact except those in `ignore`. */
export function candidatesFor(
  catalogue: Catalogue,
  request: ShoppingRequest,
  facts: Facts,
  ignore: readonly Slot[] = [],
): Product[] {
  const slots = (['type', 'size', 'colour', 'budget'] as const).filter((s) => !ignore.includes(s));
  return catalogue.filter((p) => fitsRequest(p, request) && slots.every((s) => fitsSlot(p, s, facts)));
}

/** Sizes at least one product has on the shelf, in shelf order. */
export function sizesInStock(products: Product[]): string[] {
  const sizes = new Set(products.flatMap((p) => Object.keys(p.stock).filter((s) => stockIn(p, s) > 0)));
  return [...sizes].sort(compareSizes);
}

/** The in-stock size customers bought most of, over these products: the form's proposed size. */
export function mostBoughtSize(products: Product[]): string | undefined {
  const totals = new Map<string, number>();
  for (const p of products) {
    for (const [size, sold] of Object.entries(p.sold)) {
      if (stockIn(p, size) > 0) totals.set(size, (totals.get(size) ?? 0) + sold);
    }
  }
  return [...totals.entries()].sort((a, b) => b[1] - a[1] || compareSizes(a[0], b[0]))[0]?.[0];
}

/** Colours on offer, the most common first (then by name). */
export function coloursOf(products: Product[]): string[] {
  const counts = new Map<string, number>();
  for (const p of products) counts.set(p.colour, (counts.get(p.colour) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c);
}

/** Product types on offer, the best sellers first. */
export function typesByPopularity(products: Product[]): string[] {
  const sold = new Map<string, number>();
  for (const p of products) sold.set(p.type, (sold.get(p.type) ?? 0) + totalSold(p));
  return [...sold.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([t]) => t);
}

/** Prices ascending. */
const pricesOf = (products: Product[]) => products.map((p) => p.price).sort((a, b) => a - b);

/** The price at quantile `q` (0..1) of these products. */
export function priceAt(products: Product[], q: number): number {
  const prices = pricesOf(products);
  return prices[Math.min(prices.length - 1, Math.floor(q * prices.length))] ?? 0;
}

/**
 * Round budget steps that each let in a different share of these products (about a quarter, half,
 * three quarters), so every step offered has something under it.
 */
export function budgetSteps(products: Product[]): number[] {
  const steps = [0.25, 0.5, 0.75].map((q) => Math.ceil(priceAt(products, q) / 10) * 10);
  const top = pricesOf(products).at(-1) ?? 0;
  return [...new Set(steps)].filter((step) => step < top);
}

/** Whether the prices differ enough that a budget would change the answer. */
export function pricesSpread(products: Product[]): boolean {
  const prices = pricesOf(products);
  const low = prices[0];
  const high = prices.at(-1);
  return low !== undefined && high !== undefined && high > low * 1.25;
}

/** How well a product sells overall: used to rank and to break ties. */
export { totalSold };
