import type { Audience } from './schema.js';

/** The three ways the shop sizes things. */
export type SizeSystem = 'eu' | 'letter' | 'waist';

const EU = ['36', '37', '38', '39', '40', '41', '42', '43', '44', '45', '46'];
const LETTER = ['XS', 'S', 'M', 'L', 'XL', 'XXL'];
const WAIST = ['W26', 'W28', 'W30', 'W32', 'W34', 'W36', 'W38'];

const RANGES: Record<SizeSystem, Record<Audience, [string, string]>> = {
  eu: { women: ['36', '42'], men: ['39', '46'], unisex: ['36', '46'] },
  letter: { women: ['XS', 'XL'], men: ['S', 'XXL'], unisex: ['XS', 'XXL'] },
  waist: { women: ['W26', 'W34'], men: ['W28', 'W38'], unisex: ['W26', 'W38'] },
};

/** Every size of a system, smallest first. */
export function allSizes(system: SizeSystem): string[] {
  return system === 'eu' ? EU : system === 'letter' ? LETTER : WAIST;
}

/** The sizes a model cut for `audience` comes in, smallest first. */
export function sizesFor(system: SizeSystem, audience: Audience): string[] {
  const all = allSizes(system);
  const [from, to] = RANGES[system][audience];
  return all.slice(all.indexOf(from), all.indexOf(to) + 1);
}

/** Orders sizes the way a shelf does (36 before 40, S before XL), unknown ones last. */
export function compareSizes(a: string, b: string): number {
  const rank = (size: string) => {
    for (const system of ['eu', 'letter', 'waist'] as const) {
      const index = allSizes(system).indexOf(size);
      if (index >= 0) return index;
    }
    return Number.MAX_SAFE_INTEGER;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}
