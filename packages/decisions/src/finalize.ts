import { responseProblem } from '@hitl/protocol';
import { approvalGate, validConfidence } from './gate.js';
import { criticalProblem } from './policy.js';
import {
  clip,
  type Decision,
  type DecisionInquiry,
  type FallbackStrategy,
  type FallbackTrigger,
  type Proposal,
} from './types.js';

/** A decision before its latency is known. */
export type Verdict = Omit<Decision, 'latencyMs'>;

const TRIGGER_WORDS: Record<FallbackTrigger, string> = {
  'device-timer': "the person's device timed out",
  'service-timer': 'nobody answered before the service timeout',
  refusal: 'the person declined to answer',
};

/** Words for what ended the wait, for rationales. */
export function triggerWords(trigger: FallbackTrigger): string {
  return TRIGGER_WORDS[trigger];
}

/**
 * Fails closed: nothing is approved. An approval is answered "reject"; a question gets no answer.
 * `reason` says why this strategy ran (a policy, a gate refusal, a bad model reply).
 */
export function failClosed(
  inquiry: DecisionInquiry,
  requested: FallbackStrategy,
  reason: string,
  extra: Pick<Verdict, 'model' | 'error'> = {},
): Verdict {
  const what =
    inquiry.kind === 'approval'
      ? 'The action is rejected: nothing was approved.'
      : 'No answer was chosen and nothing was approved.';
  return {
    strategy: 'fail_closed',
    requested,
    ...(inquiry.kind === 'approval' ? { answer: 'reject' } : {}),
    rationale: clip(`Failed closed: ${reason}. ${what}`),
    ...extra,
  };
}

/** Strategies whose whole point is an answer: without one they fail closed. */
const NEEDS_ANSWER = new Set<FallbackStrategy>(['default_answer', 'random']);

/** True when the proposal lets the agent go ahead with an action a person was asked to allow. */
function approves(inquiry: DecisionInquiry, strategy: FallbackStrategy, proposal: Proposal): boolean {
  return strategy === 'approve' || (inquiry.kind === 'approval' && proposal.answer === 'approve');
}

/**
 * Turns a strategy's proposal into the decision: an answer that does not fit the inquiry, or an
 * approval the gate refuses, or any machine answer to a critical inquiry, falls back to
 * `fail_closed` and the rationale says why.
 */
export function finalize(inquiry: DecisionInquiry, strategy: FallbackStrategy, proposal: Proposal): Verdict {
  const extra = {
    ...(proposal.model ? { model: proposal.model } : {}),
    ...(proposal.error ? { error: clip(proposal.error) } : {}),
  };
  const critical = criticalProblem(inquiry, strategy);
  if (critical) return failClosed(inquiry, strategy, critical, extra);
  if (proposal.answer === undefined && NEEDS_ANSWER.has(strategy)) {
    return failClosed(inquiry, strategy, `${strategy} found no answer (${proposal.rationale})`, extra);
  }
  if (proposal.answer !== undefined) {
    const problem = responseProblem(inquiry, proposal.answer);
    if (problem)
      return failClosed(inquiry, strategy, `${strategy} proposed an unfit answer (${problem})`, extra);
  }
  if (approves(inquiry, strategy, proposal)) {
    const gate = approvalGate(inquiry.critical, proposal.confidence);
    if (!gate.ok)
      return failClosed(inquiry, strategy, `${strategy} would approve, but ${gate.reason}`, extra);
  }
  const confidence = validConfidence(proposal.confidence);
  return {
    strategy,
    requested: strategy,
    ...(proposal.answer !== undefined ? { answer: proposal.answer } : {}),
    rationale: clip(proposal.rationale),
    ...(confidence !== undefined ? { confidence } : {}),
    ...extra,
  };
}

/**
 * Re-checks a decision that came from elsewhere (a remote decider): it must fit the inquiry and
 * pass the gate here too, whatever the other side claims.
 */
export function recheck(inquiry: DecisionInquiry, decision: Decision): Decision {
  if (decision.strategy === 'fail_closed') {
    // Fail closed may only ever reject or stay silent.
    const safe =
      decision.answer === undefined || (inquiry.kind === 'approval' && decision.answer === 'reject');
    return safe
      ? decision
      : {
          ...failClosed(inquiry, decision.requested, 'an unsafe fail_closed answer'),
          latencyMs: decision.latencyMs,
        };
  }
  const verdict = finalize(inquiry, decision.strategy, decision);
  return { ...verdict, requested: decision.requested, latencyMs: decision.latencyMs };
}
