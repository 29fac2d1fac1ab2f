/**
 * Whether this browser can receive Web Push, and if not, why (pure, so it is unit-tested). iPhone and
 * iPad Safari deliver push only to a web app added to the Home Screen (iOS/iPadOS 16.4 and later); in a
 * Safari tab there is no PushManager at all, so the person is told to install it first.
 */
export type PushSupport = 'supported' | 'ios-not-installed' | 'insecure' | 'unsupported';

export interface BrowserFacts {
  userAgent: string;
  /** `navigator.maxTouchPoints` (an iPad asking for desktop sites says "Macintosh" but has touch). */
  maxTouchPoints: number;
  /** Opened from the Home Screen: `display-mode: standalone`, or Safari's `navigator.standalone`. */
  standalone: boolean;
  secureContext: boolean;
  hasServiceWorker: boolean;
  hasPushManager: boolean;
  hasNotification: boolean;
}

export function isAppleMobile(userAgent: string, maxTouchPoints: number): boolean {
  return /iPhone|iPad|iPod/.test(userAgent) || (/Macintosh/.test(userAgent) && maxTouchPoints > 1);
}

export function pushSupport(facts: BrowserFacts): PushSupport {
  if (isAppleMobile(facts.userAgent, facts.maxTouchPoints) && !facts.standalone) return 'ios-not-installed';
  if (!facts.secureContext) return 'insecure';
  if (!facts.hasServiceWorker || !facts.hasPushManager || !facts.hasNotification) return 'unsupported';
  return 'supported';
}

export function browserFacts(): BrowserFacts {
  const nav = navigator as Navigator & { standalone?: boolean };
  return {
    userAgent: nav.userAgent,
    maxTouchPoints: nav.maxTouchPoints ?? 0,
    standalone: window.matchMedia?.('(display-mode: standalone)').matches === true || nav.standalone === true,
    secureContext: window.isSecureContext,
    hasServiceWorker: 'serviceWorker' in nav,
    hasPushManager: 'PushManager' in window,
    hasNotification: 'Notification' in window,
  };
}

/** The VAPID key as `applicationServerKey` wants it: base64url (with or without padding) to bytes. */
export function base64urlToBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '='));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** What the person reads after "Enable notifications", by outcome. */
export const PUSH_WORDS = {
  'ios-not-installed':
    'On iPhone and iPad, notifications reach only the app on the Home Screen: tap Share, then "Add to Home Screen", open HITL from there and enable notifications in it.',
  insecure: 'Notifications need a secure (https) address. Open this page through https.',
  unsupported:
    'This browser cannot receive notifications while the page is closed. Questions still appear here while the page is open.',
  denied:
    'Notifications are blocked for this site. Allow them in the browser’s site settings, then try again.',
  dismissed: 'Notifications were not allowed. Press the button again to be asked again.',
  'no-worker': 'The app’s background worker is not running. Reload the page and try again.',
} as const;
