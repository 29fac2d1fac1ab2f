import { formatAnswerBy, type PendingInquiry } from '@hitl/client';
import { showInvisible } from '@hitl/protocol';

/** What a local notification for one inquiry says (the fields `LocalNotifications.schedule` takes). */
export interface InquiryNotification {
  /** A positive 32-bit integer (Android's limit), the same for the same inquiry on every run. */
  id: number;
  title: string;
  body: string;
  extra: { inquiryId: string };
  autoCancel: boolean;
}

/**
 * The notification id of an inquiry: FNV-1a of its id folded to 31 bits, so the notification can be
 * removed later from the id alone (when the inquiry is answered elsewhere).
 */
export function notificationId(inquiryId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < inquiryId.length; i++) {
    hash ^= inquiryId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash & 0x7fffffff || 1;
}

/** The first line of agent text as plain words for a notification (no markdown, no line breaks). */
export function preview(text: string, max = 140): string {
  const line = showInvisible(text)
    .replace(/[#>*_`[\]()!]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** How long a notification body may be. */
const BODY_MAX = 140;

/**
 * The notification raised when an inquiry arrives: who asks, and the question; for a question with an
 * answer window, also until when it may be answered, in the phone's own time ("(answer by Thu 14:05)"),
 * so the person knows it can wait. `now` is the phone's clock.
 */
export function notificationFor(inquiry: PendingInquiry, now = Date.now()): InquiryNotification {
  const who = showInvisible(inquiry.asker.name ?? inquiry.asker.tokenSubject);
  const title = inquiry.kind === 'approval' ? `Approval needed (${who})` : `Question from ${who}`;
  const until =
    inquiry.deadlines.answerBy === undefined
      ? ''
      : ` (answer by ${formatAnswerBy(inquiry.localDeviceAt, now)})`;
  return {
    id: notificationId(inquiry.inquiryId),
    title: inquiry.critical ? `${title} - critical` : title,
    body: `${preview(inquiry.question, BODY_MAX - until.length)}${until}`,
    extra: { inquiryId: inquiry.inquiryId },
    autoCancel: true,
  };
}
