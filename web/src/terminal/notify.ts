import type { PendingInquiry } from '@hitl/client';
import { notificationFor } from '@hitl/mobile-shell';

export type NotifyPermission = NotificationPermission | 'unsupported';

export function notificationPermission(): NotifyPermission {
  return 'Notification' in window ? Notification.permission : 'unsupported';
}

/** Asks once, from a click (browsers ignore the request otherwise). */
export async function askNotificationPermission(): Promise<NotifyPermission> {
  if (!('Notification' in window)) return 'unsupported';
  return Notification.requestPermission();
}

/**
 * A system notification for a new inquiry, when the person allowed them; a click brings the page up.
 * It says what the app's notification says (`notificationFor`: who asks, the question, and until when
 * a question with an answer window may be answered).
 */
export function notifyNewInquiry(inquiry: PendingInquiry): void {
  if (notificationPermission() !== 'granted') return;
  const { title, body } = notificationFor(inquiry);
  try {
    const notification = new Notification(title, { body, tag: inquiry.inquiryId });
    notification.onclick = () => {
      window.focus();
      notification.close();
    };
  } catch {
    // Phones allow notifications only through a service worker (web/public/sw.js); the page shows it anyway.
    void navigator.serviceWorker
      ?.getRegistration()
      .then((registration) => registration?.showNotification(title, { body, tag: inquiry.inquiryId }))
      .catch(() => undefined);
  }
}
