import type { FieldValue, InquiryResponse } from '@hitl/protocol';
import seedrandom from 'seedrandom';
import { triggerWords } from './finalize.js';
import type { DecisionInquiry, FallbackTrigger, Proposal } from './types.js';

/** What a pure strategy reads. */
export interface StrategyInput {
  inquiry: DecisionInquiry;
  trigger: FallbackTrigger;
  /** Seed of `random`. */
  seed: string;
}

/** The defaults of a form's questions, or undefined when it has none. */
export function formDefaults(inquiry: DecisionInquiry): Record<string, FieldValue> | undefined {
  if (!inquiry.questions) return undefined;
  const values: Record<string, FieldValue> = {};
  for (const q of inquiry.questions) if (q.default !== undefined) values[q.id] = q.default;
  return Object.keys(values).length > 0 ? values : undefined;
}

/** The prefilled answer: the asker's default, else the form's defaults, else a machine suggestion. */
export function prefilled(inquiry: DecisionInquiry): { answer: InquiryResponse; source: string } | undefined {
  if (inquiry.defaultAnswer !== undefined)
    return { answer: inquiry.defaultAnswer, source: "the agent's default answer" };
  const defaults = formDefaults(inquiry);
  if (defaults) return { answer: defaults, source: "the form's default values" };
  if (inquiry.suggestedAnswer !== undefined) {
    return {
      answer: inquiry.suggestedAnswer,
      source: 'the suggested answer (machine-made, never confirmed by a person)',
    };
  }
  return undefined;
}

/** `default_answer`: the prefilled answer, as if the person had submitted it untouched. */
export function defaultAnswerStrategy({ inquiry, trigger }: StrategyInput): Proposal {
  const found = prefilled(inquiry);
  if (!found) return { rationale: `${triggerWords(trigger)} and there is no default answer to use` };
  return {
    answer: found.answer,
    rationale: `${triggerWords(trigger)}; used ${found.source}.`,
    confidence: inquiry.confidence,
  };
}

/** `random`: one of the options (per choice question of a form), from a seeded generator. */
export function randomStrategy({ inquiry, trigger, seed }: StrategyInput): Proposal {
  const next = seedrandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  if (inquiry.kind === 'approval') {
    return { rationale: 'random never decides an approval' };
  }
  if (inquiry.options) {
    const choice = pick(inquiry.options);
    return {
      answer: choice,
      rationale: `${triggerWords(trigger)}; picked "${choice}" at random among ${inquiry.options.length} options (seed "${seed}").`,
    };
  }
  if (inquiry.questions) {
    const values: Record<string, FieldValue> = {};
    for (const q of inquiry.questions) {
      if (q.kind === 'choice' && q.options) values[q.id] = pick(q.options);
      else if (q.kind === 'multi' && q.options) values[q.id] = [pick(q.options)];
      else if (q.default !== undefined) values[q.id] = q.default;
    }
    return {
      answer: values,
      rationale: `${triggerWords(trigger)}; picked the form's choices at random (seed "${seed}"), other fields at their defaults.`,
    };
  }
  return { rationale: 'random needs options to pick from, and this question has none' };
}

/**
 * `approve` (YOLO): the agent asked to go ahead without a person. The gate still applies, on the
 * agent's own stated confidence. A question gets its default answer, if any.
 */
export function approveStrategy({ inquiry, trigger }: StrategyInput): Proposal {
  const answer = inquiry.kind === 'approval' ? 'approve' : inquiry.defaultAnswer;
  return {
    ...(answer !== undefined ? { answer } : {}),
    rationale:
      inquiry.kind === 'approval'
        ? `${triggerWords(trigger)}; the agent asked to go ahead without a person (approve), and its confidence passed the gate. No person approved this.`
        : `${triggerWords(trigger)}; the agent asked to go ahead on its own judgement (approve). No person answered.`,
    confidence: inquiry.confidence,
  };
}
