import type { Catalogue, Product } from '../catalogue/schema.js';
import { candidatesFor } from './candidates.js';
import type { Facts, ShoppingRequest, Slot } from './facts.js';
import { missingSlots } from './missing.js';
import { draftForm, draftQuestion, type FormDraft, type QuestionDraft } from './questions.js';

/**
 * What the questions are about: the products that fit every fact, or, when none does, those left after
 * dropping the budget, then the colour (as the search will), so the size is still asked.
 */
function productsInPlay(catalogue: Catalogue, request: ShoppingRequest, facts: Facts): Product[] {
  for (const ignore of [[], ['budget'], ['budget', 'colour']] as const) {
    const products = candidatesFor(catalogue, request, facts, ignore);
    if (products.length > 0) return products;
  }
  return [];
}

/** `rounds`: one question at a time; `form`: one structured form with proposed defaults. */
export type Style = 'rounds' | 'form';

/** What the assistant does next. */
export type Step =
  | { kind: 'ask'; slots: [Slot]; draft: QuestionDraft; candidates: Product[] }
  | { kind: 'form'; slots: Slot[]; form: FormDraft; candidates: Product[] }
  | { kind: 'search' };

/**
 * The next step of the conversation, from the facts gathered so far. The kind of item comes first,
 * always as its own question (sizes depend on it); after that, `rounds` asks the first missing fact
 * with options from what is still in stock, and `form` asks all the missing facts in one form.
 */
export function nextStep(style: Style, catalogue: Catalogue, request: ShoppingRequest, facts: Facts): Step {
  const candidates = productsInPlay(catalogue, request, facts);
  const missing = missingSlots(candidates, facts);
  const first = missing[0];
  if (first === undefined || candidates.length === 0) return { kind: 'search' };
  if (style === 'rounds' || first === 'type') {
    return { kind: 'ask', slots: [first], draft: draftQuestion(first, candidates), candidates };
  }
  return { kind: 'form', slots: missing, form: draftForm(missing, candidates), candidates };
}
