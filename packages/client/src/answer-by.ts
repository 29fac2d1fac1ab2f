/** Where and how a moment is shown; both default to the device's own (the person's locale and zone). */
export interface DateTextOptions {
  locale?: string;
  timeZone?: string;
}

const DAY_MS = 86_400_000;

/**
 * The moment an answer window ends, as a person reads it on their own device: weekday and time
 * ("Thu 14:05", or "Thu 2:05 PM" where the locale says so); six days or more away the date as well
 * ("Thu 10 Dec, 14:05"), and the year when it is not this year. The weekday is always there, so the
 * text still reads right on a notification looked at days later. `at` and `now` are on the device's
 * clock (`PendingInquiry.localDeviceAt`, `Date.now()`).
 */
export function formatAnswerBy(at: number, now: number, options: DateTextOptions = {}): string {
  const { locale, timeZone } = options;
  const zone = timeZone === undefined ? {} : { timeZone };
  const year = (t: number) => new Intl.DateTimeFormat('en', { year: 'numeric', ...zone }).format(t);
  const far = at - now >= 6 * DAY_MS;
  const otherYear = year(at) !== year(now);
  return new Intl.DateTimeFormat(locale, {
    weekday: 'short',
    ...(far || otherYear ? { day: 'numeric', month: 'short' } : {}),
    ...(otherYear ? { year: 'numeric' } : {}),
    hour: 'numeric',
    minute: '2-digit',
    ...zone,
  }).format(at);
}

/** The same moment in full, for a tooltip: "Thursday, 3 December 2026 at 14:05". */
export function formatFullDate(at: number, options: DateTextOptions = {}): string {
  const { locale, timeZone } = options;
  return new Intl.DateTimeFormat(locale, {
    dateStyle: 'full',
    timeStyle: 'short',
    ...(timeZone === undefined ? {} : { timeZone }),
  }).format(at);
}
