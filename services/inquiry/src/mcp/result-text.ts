import type { InquiryResult } from '@hitl/protocol';

function show(answer: unknown): string {
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}

const TIMER_WORDS: Record<string, string> = {
  'device-timer': "the person's device timed out",
  'service-timer': 'the service timed out',
};

const DECISION_TRIGGER_WORDS: Record<string, string> = {
  'device-timer': "No human answered: the person's device timed out",
  'service-timer': 'No human answered: nobody answered before the service timeout',
  refusal: 'No human answered: the person declined to answer',
};

/** A fallback decision, worded so it can never pass for a person's answer or approval. */
function decisionText(result: InquiryResult): string {
  const by = result.resolvedBy;
  const words = [
    `${DECISION_TRIGGER_WORDS[by?.trigger ?? ''] ?? 'No human answered'}.`,
    `This is NOT a human answer: an automatic fallback (strategy "${by?.strategy ?? 'unknown'}") decided instead.`,
  ];
  if (by?.strategy === 'fail_closed') {
    words.push(
      result.answer === 'reject'
        ? 'The action is rejected and nothing was approved: do not run it.'
        : 'No answer was chosen and nothing was approved: do not assume one.',
    );
  } else if (result.answer === 'approve') {
    words.push('The fallback let the action go ahead on machine confidence alone; no person approved it.');
  } else if (result.answer !== undefined) {
    words.push(`Machine-chosen answer (no person confirmed it): ${show(result.answer)}`);
  } else {
    words.push('The fallback chose no answer; nothing was approved.');
  }
  if (by?.rationale) words.push(`The fallback's reasoning: ${by.rationale}`);
  return words.join(' ');
}

/** A quorum approval: the approvers decided, and who voted what ("ann approved, bob rejected"). */
function quorumText(result: InquiryResult): string {
  const votes = (result.votes ?? []).map(
    (v) => `${v.userId} ${v.vote === 'approve' ? 'approved' : 'rejected'}`,
  );
  return `The approvers answered: ${show(result.answer)} (votes: ${votes.join(', ')})`;
}

/** What the pending text can tell: the end of the answer window, and how long one wait may be. */
export interface PendingHints {
  answerBy?: number;
  waitMs?: number;
}

/** `pending`: nothing happened yet, nothing is approved, and how to collect the answer. */
function pendingText(id: string | null | undefined, hints: PendingHints): string {
  const until =
    hints.answerBy === undefined
      ? 'The question is still open on their devices.'
      : `The question stays open on their devices until ${new Date(hints.answerBy).toISOString()}.`;
  const args = JSON.stringify({ inquiryId: id, ...(hints.waitMs ? { waitMs: hints.waitMs } : {}) });
  return (
    `The person has not answered yet. ${until} Nothing is answered, approved or decided: do not act as if ` +
    `they replied. To collect the answer, call get_inquiry with ${args}; it returns the answer as soon as ` +
    'they give it, or "pending" again when that wait ends. Repeat until it is no longer pending; you may do ' +
    'other work in between.'
  );
}

/**
 * What the person added, in the words the model reads: their edits to an approved action
 * (`changed`) and their reason ("They said: …"). Empty when they added nothing.
 */
export function additionsText(result: Pick<InquiryResult, 'reason' | 'arguments' | 'changed'>): string {
  const words: string[] = [];
  if (result.changed?.length) {
    words.push(
      ` They approved it with their own edits (changed: ${result.changed.join(', ')}): ` +
        `use exactly these arguments: ${JSON.stringify(result.arguments ?? {})}`,
    );
  }
  if (result.reason) words.push(` They said: ${JSON.stringify(result.reason)}`);
  return words.join('');
}

/** The text the model reads; it never lets silence or a refusal read as a human answer. */
export function resultText(result: InquiryResult, hints: PendingHints = {}): string {
  const text = baseText(result, hints);
  return result.status === 'pending' ? text : text + additionsText(result);
}

function baseText(result: InquiryResult, hints: PendingHints): string {
  const id = result.inquiryId;
  const by = result.resolvedBy;
  if (by?.kind === 'decision-agent' && result.status !== 'pending') return decisionText(result);
  switch (result.status) {
    case 'answered':
      if (by?.kind === 'human' && result.votes?.length) return quorumText(result);
      if (by?.kind === 'human') return `The person answered: ${show(result.answer)}`;
      return `No human answered; a fallback decided (${by?.strategy ?? 'unknown'}): ${show(result.answer)}`;
    case 'refused':
      return (
        'The person declined to answer; no human answer was given and nothing is approved. ' +
        `Preset reply: "${show(result.answer ?? '')}"`
      );
    case 'timed_out':
      return (
        `No human answered in time (${TIMER_WORDS[by?.kind ?? ''] ?? 'timed out'}); this is not a human answer ` +
        `and approves nothing. Preset reply: "${show(result.answer ?? '')}"`
      );
    case 'cancelled':
      return 'The question was cancelled; no human answered.';
    case 'pending':
      return pendingText(id, hints);
    case 'not_found':
      return 'No question with that id or key exists for this person.';
  }
}
