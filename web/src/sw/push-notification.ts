import { formatAnswerBy } from '@hitl/client';
import { preview } from '@hitl/mobile-shell';
import { showInvisible } from '@hitl/protocol';
import type { InquiryPush, ResolvedPush } from './push-payload';

/** One button on a notification (`NotificationOptions.actions`; the DOM typings leave it out). */
export interface NotificationButton {
  action: string;
  title: string;
}

/** What the worker keeps on a notification, to answer from it later without the page. */
export interface InquiryNotificationData {
  inquiryId: string;
  /** The answer each button sends, by its `action` id. */
  answers: Record<string, string>;
  /** Where a plain click opens the page: that inquiry's card. */
  url: string;
}

/** The arguments of `registration.showNotification(title, options)`. */
export interface ShownNotification {
  title: string;
  options: {
    body: string;
    tag: string;
    requireInteraction: boolean;
    actions: NotificationButton[];
    data: InquiryNotificationData;
    timestamp: number;
  };
}

/** How long a notification body may be (the app's notification says as much, `notificationFor`). */
const BODY_MAX = 140;
/** A button label: browsers cut long ones anyway, usually near 20 characters. */
const BUTTON_MAX = 30;
/**
 * A question that must be answered within this long stays on screen until the person acts
 * (`requireInteraction`); one that may wait longer goes to the notification list as usual, so a
 * question with a three-day window does not sit over the person's work for three days.
 */
export const STICKY_WITHIN_MS = 60 * 60_000;

/** The page's address that opens one inquiry's card (`#inquiry=<id>`, read by the terminal). */
export const inquiryUrl = (inquiryId: string) => `/#inquiry=${encodeURIComponent(inquiryId)}`;

/**
 * Buttons that answer without opening the page, only where one tap says it all: Approve / Reject for
 * an approval, and the options of a question that has one or two. A form, a free-text question or a
 * longer list opens the page (a third option would be hidden on most systems, and a person should see
 * every choice before picking one).
 */
function buttonsFor(push: InquiryPush): { buttons: NotificationButton[]; answers: Record<string, string> } {
  // A passkey approval is approved only on the card, with the passkey: a tap opens it.
  if (push.requirePasskey) return { buttons: [], answers: {} };
  if (push.kind === 'approval') {
    return {
      buttons: [
        { action: 'approve', title: 'Approve' },
        { action: 'reject', title: 'Reject' },
      ],
      answers: { approve: 'approve', reject: 'reject' },
    };
  }
  const options = push.options ?? [];
  if (options.length < 1 || options.length > 2) return { buttons: [], answers: {} };
  const buttons = options.map((option, i) => ({ action: `option-${i}`, title: preview(option, BUTTON_MAX) }));
  return { buttons, answers: Object.fromEntries(options.map((option, i) => [`option-${i}`, option])) };
}

/**
 * The notification for an `inquiry` push: what kind of question it is, the question as plain text
 * (invisible characters shown as escapes, markdown marks dropped, one line) and until when it may be
 * answered on this device's clock, tagged with the inquiry id so a later push about it replaces it.
 * The payload carries no asker, so the title says what is asked, not who asks.
 */
export function inquiryNotification(push: InquiryPush, now: number): ShownNotification {
  const { buttons, answers } = buttonsFor(push);
  const until = push.answerBy > now ? ` (answer by ${formatAnswerBy(push.answerBy, now)})` : '';
  const body = `${preview(push.question, BODY_MAX - until.length)}${until}`;
  return {
    title: push.kind === 'approval' ? 'Approval needed' : 'Question for you',
    options: {
      body: body.trim() === '' ? 'Open the app to see the question.' : body,
      tag: push.inquiryId,
      requireInteraction: push.answerBy - now <= STICKY_WITHIN_MS,
      actions: buttons,
      data: { inquiryId: push.inquiryId, answers, url: inquiryUrl(push.inquiryId) },
      timestamp: now,
    },
  };
}

/** What an action button sends: `POST /api/inquiries/:id/answer {response}`, or nothing to send. */
export function answerFor(
  data: unknown,
  action: string,
): { inquiryId: string; path: string; response: string } | null {
  if (!isInquiryData(data) || !action) return null;
  const response = data.answers[action];
  if (response === undefined) return null;
  return { inquiryId: data.inquiryId, path: answerPath(data.inquiryId), response };
}

export const answerPath = (inquiryId: string) => `/api/inquiries/${encodeURIComponent(inquiryId)}/answer`;

export function isInquiryData(data: unknown): data is InquiryNotificationData {
  if (typeof data !== 'object' || data === null) return false;
  const d = data as Record<string, unknown>;
  return (
    typeof d.inquiryId === 'string' &&
    typeof d.url === 'string' &&
    typeof d.answers === 'object' &&
    d.answers !== null
  );
}

/** What the REST answer said, as the person should read it when the answer did not go through. */
export interface AnswerOutcome {
  status: number;
  /** The body's `resolvedBy.deviceName` or `error.message`, when it had one. */
  body?: unknown;
}

/**
 * The follow-up notification when an answer from a button did not count (`null` when it did): already
 * answered elsewhere (409, with who), the device was signed out or its token revoked (401/403), or
 * anything else (network, 5xx). It replaces the question's notification (same tag); a plain click
 * still opens the card.
 */
export function failureNotification(
  inquiryId: string,
  outcome: AnswerOutcome,
  now: number,
): ShownNotification | null {
  if (outcome.status >= 200 && outcome.status < 300) return null;
  let body: string;
  if (outcome.status === 409) {
    const name = deviceNameOf(outcome.body);
    body = name ? `Already answered on ${showInvisible(name)}.` : 'This question was already answered.';
  } else if (outcome.status === 401 || outcome.status === 403) {
    body = 'This device is no longer signed in. Open the app and sign in again.';
  } else if (outcome.status === 404) {
    body = 'This question no longer exists.';
  } else {
    body = 'Your answer was not sent. Open the app to answer.';
  }
  return {
    title: 'Answer not sent',
    options: {
      body,
      tag: inquiryId,
      requireInteraction: false,
      actions: [],
      data: { inquiryId, answers: {}, url: inquiryUrl(inquiryId) },
      timestamp: now,
    },
  };
}

function deviceNameOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const by = (body as { resolvedBy?: unknown }).resolvedBy;
  if (typeof by !== 'object' || by === null) return undefined;
  const name = (by as { deviceName?: unknown }).deviceName;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** The tag whose notifications a `resolved` push closes. */
export const closedTag = (push: ResolvedPush) => push.inquiryId;
