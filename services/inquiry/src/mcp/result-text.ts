import type { InquiryResult } from '@hitl/protocol';

function show(answer: unknown): string {
  return typeof answer === 'string' ? answer : JSON.stringify(answer);
}

const TIMER_WORDS: Record<string, string> = {
  'device-timer': "the person's device timed out",
  'service-timer': 'the service timed out',
};

/** The text the model reads; it never lets silence or a refusal read as a human answer. */
export function resultText(result: InquiryResult): string {
  const id = result.inquiryId;
  const by = result.resolvedBy;
  switch (result.status) {
    case 'answered':
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
      return (
        'No answer yet: the question is still open for the person. ' +
        `Call get_inquiry with {"inquiryId":"${id}"} to collect the answer later.`
      );
    case 'not_found':
      return 'No question with that id or key exists for this person.';
  }
}
