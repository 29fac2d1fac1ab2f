import type { FormQuestion, Inquiry, InquiryResponse } from '@hitl/protocol';

/** A posted answer-link form: a refusal, or the response the inputs add up to. */
export type LinkSubmission = ({ type: 'refusal' } | { type: 'answer'; response: InquiryResponse }) & {
  /** The person's reason, when they wrote one. */
  reason?: string;
};

type Posted = Record<string, string | File | (string | File)[]>;

function strings(value: Posted[string] | undefined): string[] {
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((v): v is string => typeof v === 'string');
}

function first(value: Posted[string] | undefined): string | undefined {
  return strings(value)[0];
}

/** One form field from its inputs; `undefined` when left empty (the inquiry's checks say if it may be). */
function fieldValue(q: FormQuestion, body: Posted): unknown {
  const raw = body[`q.${q.id}`];
  switch (q.kind) {
    case 'multi':
      return strings(raw);
    case 'number': {
      const value = first(raw)?.trim();
      return value ? Number(value) : undefined;
    }
    case 'boolean': {
      const value = first(raw);
      return value === 'yes' ? true : value === 'no' ? false : undefined;
    }
    default: {
      const value = first(raw);
      return value === '' && q.kind === 'choice' ? undefined : value;
    }
  }
}

/**
 * Reads the page's form (`application/x-www-form-urlencoded`) into what it asks for. The response is
 * checked against the inquiry by the service, like any device's answer.
 */
export function readSubmission(inquiry: Inquiry, body: Posted): LinkSubmission {
  const reason = first(body.reason)?.trim();
  const submission = readResponse(inquiry, body);
  return reason ? { ...submission, reason } : submission;
}

function readResponse(inquiry: Inquiry, body: Posted): LinkSubmission {
  const action = first(body.action) ?? 'answer';
  if (action === 'refuse') return { type: 'refusal' };
  if (inquiry.kind === 'approval') {
    return {
      type: 'answer',
      response: action === 'approve' ? 'approve' : action === 'reject' ? 'reject' : '',
    };
  }
  if (inquiry.questions) {
    const response: Record<string, unknown> = {};
    for (const q of inquiry.questions) {
      const value = fieldValue(q, body);
      if (value !== undefined) response[q.id] = value;
    }
    return { type: 'answer', response: response as InquiryResponse };
  }
  return { type: 'answer', response: first(body.response) ?? '' };
}
