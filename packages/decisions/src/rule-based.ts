import { triggerWords } from './finalize.js';
import { prefilled, type StrategyInput } from './strategies.js';
import type { DecisionInquiry, Proposal } from './types.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The one option the context names as a whole word (case-insensitive), if exactly one is named. */
export function optionNamedInContext(inquiry: DecisionInquiry): string | undefined {
  if (!inquiry.options || inquiry.context === undefined) return undefined;
  const text = typeof inquiry.context === 'string' ? inquiry.context : JSON.stringify(inquiry.context);
  const named = inquiry.options.filter((option) =>
    new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(option)}(?![\\p{L}\\p{N}])`, 'iu').test(text),
  );
  return named.length === 1 ? named[0] : undefined;
}

/**
 * The `agent` strategy without a model (no `HITL_LLM_URL`), in this order:
 * 1. an approval is approved only when the agent prefilled "approve" (and the gate then judges its
 *    confidence); otherwise it is rejected: without a model nothing can judge the action;
 * 2. a question takes its prefilled answer (the agent's default, the form's defaults, a suggestion);
 * 3. else the one option the context names;
 * 4. else no answer: on a refusal the agent continues on its own understanding; on a timeout a new
 *    inquiry is needed.
 */
export function ruleBasedAgent({ inquiry, trigger }: StrategyInput): Proposal {
  const why = triggerWords(trigger);
  if (inquiry.kind === 'approval') {
    if (inquiry.defaultAnswer === 'approve') {
      return {
        answer: 'approve',
        rationale: `${why}; rule-based decider: the agent prefilled "approve" and its confidence passed the gate. No person approved this.`,
        confidence: inquiry.confidence,
      };
    }
    return {
      answer: 'reject',
      rationale: `${why}; rule-based decider (no model configured): an action is never approved without a prefilled "approve", so it is rejected.`,
    };
  }
  const found = prefilled(inquiry);
  if (found) return { answer: found.answer, rationale: `${why}; rule-based decider used ${found.source}.` };
  const named = optionNamedInContext(inquiry);
  if (named !== undefined) {
    return {
      answer: named,
      rationale: `${why}; rule-based decider: the context names "${named}" and no other option.`,
    };
  }
  return {
    rationale:
      trigger === 'refusal'
        ? `${why}; rule-based decider found no answer in the context: continue on your own understanding of the request.`
        : `${why}; rule-based decider: the context is not enough to decide, so a new inquiry is needed.`,
  };
}
