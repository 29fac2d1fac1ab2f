import type { Audience, Catalogue, Department } from '../catalogue/schema.js';
import { allSizes } from '../catalogue/sizes.js';
import type { Facts, ShoppingRequest } from './facts.js';
import { AUDIENCE_WORDS, COLOUR_WORDS, DEPARTMENT_WORDS, TYPE_WORDS } from './vocabulary.js';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The position of `phrase` in `text` as a whole word or phrase, or -1. */
export function findPhrase(text: string, phrase: string): number {
  const match = new RegExp(`(?<![a-z0-9])${escapeRegExp(phrase)}(?![a-z0-9])`).exec(text);
  return match ? match.index : -1;
}

/** The key whose phrases appear in `text`, longest phrase first; earliest key on a tie. */
export function matchWord<K extends string>(text: string, words: Record<K, string[]>): K | undefined {
  const entries = Object.entries(words) as [K, string[]][];
  const phrases = entries
    .flatMap(([key, list]) => list.map((phrase) => ({ key, phrase })))
    .sort((a, b) => b.phrase.length - a.phrase.length);
  return phrases.find(({ phrase }) => findPhrase(text, phrase) >= 0)?.key;
}

const BUDGET_PATTERNS = [
  /(?:under|below|less than|max(?:imum)?|up to|no more than|within|at most|budget(?: is| of)?)\s*(?:€|eur\s*|euros?\s*|\$|£)?\s*(\d{1,5}(?:[.,]\d{1,2})?)/,
  /(?:€|\$|£)\s*(\d{1,5}(?:[.,]\d{1,2})?)/,
  /(\d{1,5}(?:[.,]\d{1,2})?)\s*(?:€|eur\b|euros?\b|dollars?\b|bucks\b|quid\b)/,
];

/** A budget in the text ("under €120", "max 80 euros", "$60"), in whole or decimal euros. */
export function parseBudget(text: string): number | undefined {
  for (const pattern of BUDGET_PATTERNS) {
    const match = pattern.exec(text);
    if (match?.[1]) return Number(match[1].replace(',', '.'));
  }
  return undefined;
}

const KNOWN_SIZES = [...allSizes('eu'), ...allSizes('letter'), ...allSizes('waist')];

/** A size the customer named: "size 42", "EU 38", "size M", "W32", "32 waist". */
export function parseSize(text: string): string | undefined {
  const patterns = [
    /\b(?:size|eu|sz)\s*:?\s*(\d{2}|xxl|xl|xs|s|m|l|w\d{2})\b/,
    /\b(w\d{2})\b/,
    /\b(\d{2})\s*(?:waist|inch waist)\b/,
  ];
  for (const pattern of patterns) {
    const raw = pattern.exec(text)?.[1];
    if (!raw) continue;
    const size = /^\d{2}$/.test(raw) && pattern === patterns[2] ? `W${raw}` : raw.toUpperCase();
    if (KNOWN_SIZES.includes(size)) return size;
  }
  return undefined;
}

/** The features of the catalogue the text mentions ("waterproof", "merino wool"). */
function parseFeatures(text: string, catalogue: Catalogue): string[] {
  const all = [...new Set(catalogue.flatMap((p) => p.features))];
  return all.filter((feature) => findPhrase(text, feature) >= 0).sort();
}

/**
 * Reads what a customer's request already says: type, size, colour, budget, audience, features.
 * Pure: the same text and catalogue always give the same reading.
 *
 * @example parseRequest('blue running shoes under €120', catalogue).facts.budget // { value: 120, source: 'request' }
 */
export function parseRequest(text: string, catalogue: Catalogue): ShoppingRequest {
  const lower = text.toLowerCase();
  const facts: Facts = {};
  const type = matchWord(lower, TYPE_WORDS);
  if (type && catalogue.some((p) => p.type === type)) facts.type = { value: type, source: 'request' };
  const department: Department | undefined =
    catalogue.find((p) => p.type === type)?.department ?? matchWord(lower, DEPARTMENT_WORDS);
  const colour = matchWord(lower, COLOUR_WORDS);
  if (colour) facts.colour = { value: colour, source: 'request' };
  else if (/\bany colou?r\b/.test(lower)) facts.colour = { value: null, source: 'request' };
  const budget = parseBudget(lower);
  if (budget !== undefined) facts.budget = { value: budget, source: 'request' };
  const size = parseSize(lower);
  if (size) facts.size = { value: size, source: 'request' };
  const audience: Audience | undefined = matchWord(lower, AUDIENCE_WORDS);
  return {
    text,
    facts,
    features: parseFeatures(lower, catalogue),
    ...(department ? { department } : {}),
    ...(audience ? { audience } : {}),
  };
}
