import type { PendingInquiry } from '@hitl/client';
import { showInvisible } from '@hitl/protocol';

/** Below this confidence an approval says "low confidence" even when the asker gave no reason. */
const LOW_CONFIDENCE = 0.5;

/**
 * Why an approval was put to the person, from the inquiry's own fields (`critical`, `confidence`) and
 * the reason the approval proxy writes into its context (`context.why`, e.g. "the server does not mark
 * it non-destructive"). Each entry is a short label and, when known, the words behind it.
 */
export function approvalReasons(
  inquiry: Pick<PendingInquiry, 'critical' | 'confidence' | 'context'>,
): { label: string; detail?: string }[] {
  const reasons: { label: string; detail?: string }[] = [];
  const context = inquiry.context;
  const why =
    context && typeof context === 'object' && !Array.isArray(context) && typeof context.why === 'string'
      ? showInvisible(context.why)
      : undefined;
  if (inquiry.critical) reasons.push({ label: 'Critical' });
  if (why && /destructive/i.test(why)) reasons.push({ label: 'Destructive', detail: why });
  const whyConfidence = why !== undefined && /confiden/i.test(why) ? why : undefined;
  const lowConfidence =
    (inquiry.confidence !== undefined && inquiry.confidence < LOW_CONFIDENCE) || whyConfidence !== undefined;
  if (lowConfidence) {
    const shown =
      inquiry.confidence === undefined ? undefined : `confidence ${inquiry.confidence.toFixed(2)}`;
    const detail = [whyConfidence, shown].filter(Boolean).join('; ');
    reasons.push(detail ? { label: 'Low confidence', detail } : { label: 'Low confidence' });
  }
  if (why && !reasons.some((r) => r.detail?.includes(why))) reasons.push({ label: 'Reason', detail: why });
  return reasons;
}

/** A size people read: "812 B", "2.4 KB", "1.1 MB". */
export function byteSize(text: string): string {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
