import type { Product } from '../catalogue/schema.js';
import { sizesInStock, typesByPopularity } from './candidates.js';
import type { Slot, SlotValue } from './facts.js';
import { findPhrase, matchWord, parseBudget } from './parse-request.js';
import { ANY_COLOUR, NO_LIMIT } from './questions.js';
import { ANY_COLOUR_WORDS, COLOUR_WORDS, TYPE_WORDS } from './vocabulary.js';

/** A value the planner could not read: the reply said nothing usable for that slot. */
export const UNREADABLE = Symbol('unreadable');

function readText(slot: Slot, text: string, candidates: Product[]): SlotValue | typeof UNREADABLE {
  const lower = text.trim().toLowerCase();
  if (lower === '') return UNREADABLE;
  switch (slot) {
    case 'type': {
      const known = typesByPopularity(candidates);
      const type = known.find((t) => t === lower) ?? matchWord(lower, TYPE_WORDS);
      return type && known.includes(type) ? type : UNREADABLE;
    }
    case 'size': {
      const size = sizesInStock(candidates).find((s) => s.toLowerCase() === lower.replace(/^size\s+/, ''));
      return size ?? UNREADABLE;
    }
    case 'colour':
      if (lower === ANY_COLOUR.toLowerCase() || ANY_COLOUR_WORDS.some((w) => findPhrase(lower, w) >= 0)) {
        return null;
      }
      return matchWord(lower, COLOUR_WORDS) ?? UNREADABLE;
    case 'budget': {
      if (lower === NO_LIMIT.toLowerCase() || /\bno (?:limit|budget)\b/.test(lower)) return null;
      const euros = /^\d+(?:[.,]\d+)?$/.test(lower) ? Number(lower.replace(',', '.')) : parseBudget(lower);
      return euros !== undefined && euros > 0 ? euros : UNREADABLE;
    }
  }
}

/**
 * What a reply says about one slot: an option label, free text, or a form field (a number for the
 * budget). `UNREADABLE` when it says nothing usable (blank, or not something the shop has).
 */
export function readSlot(slot: Slot, value: unknown, candidates: Product[]): SlotValue | typeof UNREADABLE {
  if (typeof value === 'number') {
    if (slot !== 'budget') return readText(slot, String(value), candidates);
    return Number.isFinite(value) && value > 0 ? value : UNREADABLE;
  }
  if (typeof value !== 'string') return UNREADABLE;
  return readText(slot, value, candidates);
}
