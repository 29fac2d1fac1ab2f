import type { Product } from '../catalogue/schema.js';
import type { Facts, Slot } from '../planner/facts.js';

export interface PhraseInput {
  request: string;
  /** The `clarify_user_intent` prompt text. */
  instructions: string;
  slots: Slot[];
  /** The planner's wording; what the rule brain asks verbatim. */
  question: string;
  options?: string[];
}

export interface PickInput {
  request: string;
  instructions: string;
  facts: Facts;
  /** Products that already fit every fact, best first by the planner's ranking. */
  ranked: Product[];
  count: number;
}

export interface Picks {
  products: Product[];
  /** A line the brain adds about its choice. */
  note?: string;
}

/**
 * The parts of the assistant a language model may take over: wording a question, and choosing among
 * products that already fit. What to ask, the options, and the constraints stay with the planner, so a
 * model can never recommend something out of stock, in the wrong colour, or over budget.
 */
export interface Brain {
  readonly name: string;
  phraseQuestion(input: PhraseInput): Promise<string>;
  pickProducts(input: PickInput): Promise<Picks>;
}

/** The default brain: the planner's own wording and ranking, no model needed. */
export const ruleBrain: Brain = {
  name: 'rules',
  phraseQuestion: async ({ question }) => question,
  pickProducts: async ({ ranked, count }) => ({ products: ranked.slice(0, count) }),
};
