import type { FormQuestion } from '@hitl/protocol';
import type { Product } from '../catalogue/schema.js';
import {
  budgetSteps,
  coloursOf,
  mostBoughtSize,
  priceAt,
  sizesInStock,
  typesByPopularity,
} from './candidates.js';
import type { Slot } from './facts.js';

export const ANY_COLOUR = 'Any colour';
export const NO_LIMIT = 'No limit';

/** "Up to €80" as an option label. */
export const budgetLabel = (euros: number) => `Up to €${euros}`;

/** One closed question for one slot, before any wording is polished. */
export interface QuestionDraft {
  slot: Slot;
  question: string;
  options: string[];
  /** The option the assistant would pick for the customer (prefilled, and the fallback default). */
  proposed: string;
}

/** A form of several slots, with the values the assistant proposes as defaults. */
export interface FormDraft {
  question: string;
  questions: FormQuestion[];
  defaults: Record<string, string | number>;
}

function describe(candidates: Product[]): string {
  const types = new Set(candidates.map((p) => p.type));
  return types.size === 1 ? [...types][0]! : 'item';
}

/** The typical price rounded up to ten euros: what the form proposes as a budget. */
export const typicalBudget = (candidates: Product[]) => Math.ceil(priceAt(candidates, 0.5) / 10) * 10;

/** A single question (with options) for `slot` over the products still in play. */
export function draftQuestion(slot: Slot, candidates: Product[]): QuestionDraft {
  const what = describe(candidates);
  switch (slot) {
    case 'type': {
      const options = typesByPopularity(candidates);
      return { slot, question: 'What are you shopping for?', options, proposed: options[0]! };
    }
    case 'size': {
      const options = sizesInStock(candidates);
      const proposed = mostBoughtSize(candidates) ?? options[0]!;
      return { slot, question: `Which size do you need in the ${what}?`, options, proposed };
    }
    case 'colour': {
      const options = [...coloursOf(candidates), ANY_COLOUR];
      return { slot, question: `Which colour would you like the ${what} in?`, options, proposed: ANY_COLOUR };
    }
    case 'budget': {
      const options = [...budgetSteps(candidates).map(budgetLabel), NO_LIMIT];
      const typical = budgetLabel(typicalBudget(candidates));
      const proposed = options.includes(typical) ? typical : NO_LIMIT;
      return { slot, question: `What would you like to spend on the ${what}, at most?`, options, proposed };
    }
  }
}

const FORM_PROMPTS: Record<Exclude<Slot, 'type'>, string> = {
  size: 'Size',
  colour: 'Colour',
  budget: 'Budget in euros (leave empty for no limit)',
};

/** One form asking every slot in `slots` (type aside) at once, with proposed defaults. */
export function draftForm(slots: Slot[], candidates: Product[]): FormDraft {
  const questions: FormQuestion[] = [];
  const defaults: Record<string, string | number> = {};
  for (const slot of slots) {
    if (slot === 'type') continue;
    if (slot === 'budget') {
      const proposed = typicalBudget(candidates);
      questions.push({ id: slot, prompt: FORM_PROMPTS.budget, kind: 'number', default: proposed });
      defaults[slot] = proposed;
      continue;
    }
    const { options, proposed } = draftQuestion(slot, candidates);
    questions.push({ id: slot, prompt: FORM_PROMPTS[slot], kind: 'choice', options, default: proposed });
    defaults[slot] = proposed;
  }
  const what = describe(candidates);
  return { question: `A few details so I can find the right ${what}`, questions, defaults };
}
