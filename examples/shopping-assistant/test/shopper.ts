import type { DeviceInquiry } from '@hitl/protocol';
import type { Product } from '../src/catalogue/schema.js';
import { stockIn } from '../src/planner/candidates.js';
import type { Slot } from '../src/planner/facts.js';
import type { ConversationResult } from '../src/transcript/events.js';
import type { Move } from './live.js';

/** Which fact a single question asks for, from the planner's wording (the rule brain asks verbatim). */
export function slotAsked(inquiry: DeviceInquiry): Slot | 'form' {
  if (inquiry.questions) return 'form';
  if (/size/i.test(inquiry.question)) return 'size';
  if (/colour/i.test(inquiry.question)) return 'colour';
  if (/spend/i.test(inquiry.question)) return 'budget';
  return 'type';
}

/**
 * A customer who answers single questions by picking options (the second size, the first colour, the
 * lowest budget step) and refuses the slots listed in `refuse`.
 */
export function pickingCustomer(refuse: Slot[] = []) {
  return (inquiry: DeviceInquiry): Move => {
    const slot = slotAsked(inquiry);
    if (slot === 'form') throw new Error('this customer answers single questions only');
    if (refuse.includes(slot)) return { refuse: true };
    const options = inquiry.options ?? [];
    const pick = slot === 'size' ? (options[1] ?? options[0]) : options[0];
    if (pick === undefined) throw new Error(`no options on "${inquiry.question}"`);
    return { answer: pick };
  };
}

/** Every recommendation of a run, checked against the catalogue: size in stock, colour, budget. */
export function checkRecommendations(run: ConversationResult, catalogue: Product[]) {
  const facts = run.facts;
  return run.recommendations.map((item) => {
    const product = catalogue.find((p) => p.id === item.id);
    if (!product) throw new Error(`recommended ${item.id}, which is not in the catalogue`);
    const size = facts.size?.value;
    const colour = facts.colour?.value;
    const budget = facts.budget?.value;
    return {
      id: item.id,
      sizeInStock: typeof size === 'string' ? stockIn(product, size) > 0 : 'no size',
      colourFits: typeof colour === 'string' ? product.colour === colour : 'any colour',
      withinBudget: typeof budget === 'number' ? product.price <= budget : 'no budget',
      type: product.type,
    };
  });
}
