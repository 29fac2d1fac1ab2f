import type { Audience, Product } from './schema.js';
import { type SizeSystem, sizesFor } from './sizes.js';
import { BRANDS, TYPE_SPECS, type TypeSpec } from './specs.js';

/** The seed the committed `data/catalogue.json` was made with. */
export const CATALOGUE_SEED = 20261129;

type Random = () => number;

/** mulberry32: a tiny seeded generator, so the catalogue is the same on every machine. */
function seeded(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

function sample<T>(random: Random, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const chosen: T[] = [];
  while (chosen.length < count && pool.length > 0) {
    chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0] as T);
  }
  return chosen;
}

/** The size most people of an audience buy, per size system. */
const PEAK: Record<SizeSystem, Record<Audience, string>> = {
  eu: { women: '38', men: '43', unisex: '41' },
  letter: { women: 'M', men: 'L', unisex: 'M' },
  waist: { women: 'W28', men: 'W32', unisex: 'W30' },
};

/** Sales fall off away from the peak size (bell-shaped); stock is patchy, with sold-out sizes. */
function sizeRun(random: Random, sizes: string[], peak: number, popularity: number) {
  const stock: Record<string, number> = {};
  const sold: Record<string, number> = {};
  sizes.forEach((size, index) => {
    const weight = Math.exp(-((index - peak) ** 2) / (2 * 1.6 ** 2));
    sold[size] = Math.round(popularity * weight * (0.7 + 0.6 * random()));
    stock[size] = random() < 0.18 ? 0 : 1 + Math.floor(random() * 10 * (0.4 + weight));
  });
  return { stock, sold };
}

/** A shelf price ending in .95, inside the type's range. */
function shelfPrice(random: Random, [low, high]: [number, number]): number {
  const raw = low + random() * (high - low);
  return Math.max(low, Math.floor(raw / 5) * 5) + 0.95;
}

function modelProducts(random: Random, spec: TypeSpec, model: string, nextId: () => string): Product[] {
  const brand = pick(random, BRANDS);
  const audience = pick(random, spec.audiences);
  const sizes = sizesFor(spec.sizes, audience);
  const jitter = Math.floor(random() * 3) - 1;
  const peak = Math.min(sizes.length - 1, Math.max(0, sizes.indexOf(PEAK[spec.sizes][audience]) + jitter));
  const basePrice = shelfPrice(random, spec.price);
  const rating = Math.round((3.4 + random() * 1.6) * 10) / 10;
  const features = sample(random, spec.features, 2 + Math.floor(random() * 2));
  const colours = sample(random, spec.colours, 3 + Math.floor(random() * 2));
  return colours.map((colour) => {
    // Some colourways (seasonal ones) cost a little more.
    const price = random() < 0.25 ? basePrice + 10 : basePrice;
    return {
      id: nextId(),
      name: model,
      brand,
      department: spec.department,
      type: spec.type,
      audience,
      colour,
      price: Math.round(price * 100) / 100,
      rating,
      features,
      ...sizeRun(random, sizes, peak, 20 + Math.floor(random() * 280)),
    };
  });
}

/**
 * Makes the example's catalogue: every type, model and colourway, with stock and sales per size.
 * Pure and seeded: the same seed gives the same catalogue, which is committed as `data/catalogue.json`.
 */
export function generateCatalogue(seed: number = CATALOGUE_SEED): Product[] {
  const random = seeded(seed);
  let counter = 0;
  const nextId = () => `SKU-${String(++counter).padStart(4, '0')}`;
  return TYPE_SPECS.flatMap((spec) =>
    spec.models.flatMap((model) => modelProducts(random, spec, model, nextId)),
  );
}
