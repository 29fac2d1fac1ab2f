import type { Product } from '../catalogue/schema.js';
import { readSlot, UNREADABLE } from './answers.js';
import { mostBoughtSize, typesByPopularity } from './candidates.js';
import type { Fact, Facts, Slot } from './facts.js';
import type { Reply } from './reply.js';

/** The sensible default for a slot nobody filled (any colour, no price limit), and why it is sensible. */
export function assume(slot: Slot, candidates: Product[]): Fact {
  switch (slot) {
    case 'type': {
      const type = typesByPopularity(candidates)[0] ?? null;
      return { value: type, source: 'assumed', note: 'the best seller here' };
    }
    case 'size':
      return {
        value: mostBoughtSize(candidates) ?? null,
        source: 'assumed',
        note: 'the size most bought for these',
      };
    case 'colour':
      return { value: null, source: 'assumed' };
    case 'budget':
      return { value: null, source: 'assumed' };
  }
}

const WHY: Record<Exclude<Reply['kind'], 'answered' | 'decided' | 'cancelled'>, string> = {
  refused: "you'd rather not say",
  timed_out: 'nobody answered in time',
};

const because = (fallback: Fact, why: string) => (fallback.note ? `${fallback.note}; ${why}` : why);

/** The answer a reply gives for `slot`: the string of a single question, the field of a form. */
function valueFor(slot: Slot, answer: unknown, single: boolean): unknown {
  if (single) return answer;
  return typeof answer === 'object' && answer !== null
    ? (answer as Record<string, unknown>)[slot]
    : undefined;
}

/**
 * Turns a reply to a question about `slots` into facts. A human answer becomes the customer's fact; a
 * fallback decision becomes a labelled `decision-agent` fact; a refusal, silence, or a blank field
 * becomes a stated assumption. `cancelled` gives no facts (the assistant stops).
 */
export function factsFromReply(slots: Slot[], reply: Reply, candidates: Product[]): Facts {
  if (reply.kind === 'cancelled') return {};
  const facts: Facts = {};
  const single = slots.length === 1;
  for (const slot of slots) {
    const fallback = assume(slot, candidates);
    if (reply.kind === 'refused' || reply.kind === 'timed_out') {
      facts[slot] = { ...fallback, note: because(fallback, WHY[reply.kind]) };
      continue;
    }
    const value = readSlot(slot, valueFor(slot, reply.answer, single), candidates);
    if (value !== UNREADABLE) {
      facts[slot] = { value, source: reply.kind === 'answered' ? 'customer' : 'decision-agent' };
      continue;
    }
    const why = reply.kind === 'answered' ? 'left open' : 'the fallback gave no usable answer';
    facts[slot] = { ...fallback, note: because(fallback, why) };
  }
  return facts;
}
