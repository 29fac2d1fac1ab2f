import type { PendingInquiry } from '@hitl/client';
import type { InquiryResponse } from '@hitl/protocol';
import { useEffect, useState } from 'react';
import { type Draft, type DraftValue, fieldMessage, fieldsOf, initialDraft, toResponse } from './form-values';

/**
 * The editable answer of one card: prefilled, re-filled by a later suggestion while untouched, and
 * checked field by field (live once the person tried to send).
 */
export function useDraft(inquiry: PendingInquiry) {
  const fields = fieldsOf(inquiry);
  const [draft, setDraft] = useState<Draft>(() => initialDraft(inquiry).draft);
  const [source, setSource] = useState(() => initialDraft(inquiry).source);
  const [edited, setEdited] = useState(false);
  const [tried, setTried] = useState(false);
  const [problems, setProblems] = useState<Record<string, string>>({});

  useEffect(() => {
    if (edited) return;
    const next = initialDraft(inquiry);
    setDraft(next.draft);
    setSource(next.source);
  }, [inquiry, edited]);

  const change = (id: string, value: DraftValue) => {
    setEdited(true);
    setDraft((d) => ({ ...d, [id]: value }));
    if (!tried) return;
    const field = fields.find((f) => f.id === id);
    const message = field ? fieldMessage(field, value) : null;
    setProblems(({ [id]: _old, _form: _f, ...rest }) => (message ? { ...rest, [id]: message } : rest));
  };

  /** The response to send, or null after showing what to fix (`firstBad` names the field to focus). */
  const check = (): { response: InquiryResponse } | { response: null; firstBad?: string } => {
    setTried(true);
    const result = toResponse(inquiry, draft);
    setProblems(result.problems ?? {});
    if (!result.problems) return { response: result.response };
    const bad = result.problems;
    return { response: null, firstBad: fields.find((f) => bad[f.id])?.id };
  };

  return { fields, draft, source, problems, change, check };
}
