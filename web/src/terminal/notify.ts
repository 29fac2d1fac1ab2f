import type { PendingInquiry } from '@hitl/client';
import { showInvisible } from '@hitl/protocol';

export type NotifyPermission = NotificationPermission | 'unsupported';

export function notificationPermission(): NotifyPermission {
  return 'Notification' in window ? Notification.permission : 'unsupported';
}

/** Asks once, from a click (browsers ignore the request otherwise). */
export async function askNotificationPermission(): Promise<NotifyPermission> {
  if (!('Notification' in window)) return 'unsupported';
  return Notification.requestPermission();
}

/** The first line of the question as plain text, for a notification body. */
export function preview(text: string, max = 140): string {
  const line = showInvisible(text)
    .replace(/[#>*_`[\]()!]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A system notification for a new inquiry, when the person allowed them; a click brings the page up. */
export function notifyNewInquiry(inquiry: PendingInquiry): void {
  if (notificationPermission() !== 'granted') return;
  const who = showInvisible(inquiry.asker.name ?? inquiry.asker.tokenSubject);
  const title = inquiry.kind === 'approval' ? `Approval needed (${who})` : `Question from ${who}`;
  try {
    const notification = new Notification(title, { body: preview(inquiry.question), tag: inquiry.inquiryId });
    notification.onclick = () => {
      window.focus();
      notification.close();
    };
  } catch {
    // Phones allow notifications only through a service worker (web/public/sw.js); the page shows it anyway.
    void navigator.serviceWorker
      ?.getRegistration()
      .then((registration) =>
        registration?.showNotification(title, { body: preview(inquiry.question), tag: inquiry.inquiryId }),
      )
      .catch(() => undefined);
  }
}
