import { loadPushDevice, type PushDevice, savePushDevice } from '../device-store';
import {
  type AnswerOutcome,
  answerFor,
  failureNotification,
  inquiryNotification,
  isInquiryData,
  type ShownNotification,
} from '../push-notification';
import { readPushPayload } from '../push-payload';

/** The message a plain click posts to an open page: show that inquiry's card. */
export const OPEN_INQUIRY = 'hitl:open-inquiry';

/**
 * Web Push in the worker: an `inquiry` push shows a notification (tag = inquiry id),
 * a `resolved` push closes it; an action button answers through REST with the device token the page
 * stored (device-store.ts); a plain click opens or focuses the page at that inquiry's card.
 */
export function installPush(sw: ServiceWorkerGlobalScope): void {
  sw.addEventListener('push', (event) => {
    event.waitUntil(onPush(sw, event.data ? event.data.text() : null));
  });

  sw.addEventListener('notificationclick', (event) => {
    const work = onClick(sw, event.notification, event.action);
    extend(event, work);
  });

  sw.addEventListener('pushsubscriptionchange', (event) => {
    const change = event as ExtendableEvent & { oldSubscription?: PushSubscription | null };
    extend(change, resubscribe(sw, change.oldSubscription ?? null));
  });
}

/**
 * `waitUntil` keeps the worker alive until `work` settles. It throws for an event made by script
 * rather than by the browser (the e2e test dispatches `notificationclick` that way, since Chromium
 * offers no way to click a notification); `work` is already running, so it still completes.
 */
function extend(event: ExtendableEvent, work: Promise<unknown>): void {
  try {
    event.waitUntil(work);
  } catch {
    // Not a browser event: nothing to extend.
  }
}

/**
 * Chromium loses a notification when `getNotifications()` is called while its `showNotification()` is
 * still pending: the read finds it stored but not yet on display and deletes it as stale, so no later
 * read finds it (seen in web/test/e2e/web-push.test.ts). Pushes are handled side by side (a
 * `resolved` push for one question while the next is shown), so the worker's shows and reads run one
 * at a time.
 */
let notificationWork: Promise<unknown> = Promise.resolve();

function inTurn<T>(work: () => Promise<T>): Promise<T> {
  const run = notificationWork.then(work);
  notificationWork = run.catch(() => undefined);
  return run;
}

const show = (sw: ServiceWorkerGlobalScope, shown: ShownNotification) =>
  inTurn(() => sw.registration.showNotification(shown.title, shown.options as NotificationOptions));

async function onPush(sw: ServiceWorkerGlobalScope, text: string | null): Promise<void> {
  const read = readPushPayload(text);
  if (!read.ok) {
    console.warn('HITL: push ignored:', read.problem);
    return;
  }
  const { payload } = read;
  if (payload.type === 'inquiry') {
    await show(sw, inquiryNotification(payload, Date.now()));
    // Pushes from two nodes can cross: the question may already be over (its `resolved` push came
    // first). Shown first, so nothing waits on the network; closed again if the node says it ended.
    if ((await inquiryStatus(sw, payload.inquiryId)) === 'ended') await closeTag(sw, payload.inquiryId);
    return;
  }
  // Answered, refused, timed out or cancelled, here or anywhere else: nothing is left to answer.
  await closeTag(sw, payload.inquiryId);
}

function closeTag(sw: ServiceWorkerGlobalScope, tag: string): Promise<void> {
  return inTurn(async () => {
    const open = await sw.registration.getNotifications({ tag });
    for (const notification of open) notification.close();
  });
}

/** How long the worker asks the node whether a pushed question is still open. */
const STATUS_WAIT_MS = 5_000;

/**
 * `GET /api/inquiries/:id` with the stored token: "ended" only when the node says the inquiry is no
 * longer pending; anything else (no token, offline, slow, another answer) leaves the notification up.
 */
async function inquiryStatus(sw: ServiceWorkerGlobalScope, inquiryId: string): Promise<'ended' | 'open'> {
  const device = await loadPushDevice().catch(() => null);
  if (!device) return 'open';
  try {
    const res = await fetch(new URL(`/api/inquiries/${encodeURIComponent(inquiryId)}`, sw.location.origin), {
      headers: { authorization: `Bearer ${device.token}` },
      cache: 'no-store',
      signal: AbortSignal.timeout(STATUS_WAIT_MS),
    });
    if (!res.ok) return 'open';
    const body = (await res.json()) as { status?: unknown };
    return typeof body.status === 'string' && body.status !== 'pending' ? 'ended' : 'open';
  } catch {
    return 'open';
  }
}

async function onClick(
  sw: ServiceWorkerGlobalScope,
  notification: Notification,
  action: string,
): Promise<void> {
  notification.close();
  const data: unknown = notification.data;
  const answer = answerFor(data, action);
  if (!answer) {
    await openCard(
      sw,
      isInquiryData(data) ? data.inquiryId : undefined,
      isInquiryData(data) ? data.url : '/',
    );
    return;
  }
  const device = await loadPushDevice().catch(() => null);
  const outcome = device ? await post(sw, device, answer.path, answer.response) : { status: 401 };
  const failed = failureNotification(answer.inquiryId, outcome, Date.now());
  if (failed) await show(sw, failed);
}

/** Header values must be Latin-1; a name outside printable ASCII is left out (the token's name is used). */
const PLAIN_NAME = /^[\x20-\x7e]{1,100}$/;

async function post(
  sw: ServiceWorkerGlobalScope,
  device: PushDevice,
  path: string,
  response: string,
): Promise<AnswerOutcome> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${device.token}`,
    'content-type': 'application/json',
  };
  if (PLAIN_NAME.test(device.deviceName)) headers['x-device-name'] = device.deviceName;
  try {
    const res = await fetch(new URL(path, sw.location.origin), {
      method: 'POST',
      headers,
      body: JSON.stringify({ response }),
      cache: 'no-store',
    });
    return { status: res.status, body: await res.json().catch(() => undefined) };
  } catch {
    return { status: 0 };
  }
}

async function openCard(
  sw: ServiceWorkerGlobalScope,
  inquiryId: string | undefined,
  url: string,
): Promise<void> {
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((w) => new URL(w.url).origin === sw.location.origin);
  if (open) {
    if (inquiryId) open.postMessage({ type: OPEN_INQUIRY, inquiryId });
    // Focus needs the click's user activation; a page that will not come forward still got the message.
    await open.focus().catch(() => undefined);
    return;
  }
  await sw.clients.openWindow(new URL(url, sw.location.origin).href);
}

/**
 * The browser replaced the subscription (keys rotated or expired): subscribe again with the same
 * VAPID key, tell the node about the new one and forget the old. Without a stored device (push was
 * never turned on here, or turned off) there is nothing to renew.
 */
async function resubscribe(sw: ServiceWorkerGlobalScope, old: PushSubscription | null): Promise<void> {
  const device = await loadPushDevice().catch(() => null);
  const key = old?.options.applicationServerKey;
  if (!device || !key) return;
  const fresh = await sw.registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: key,
  });
  const res = await fetch(new URL('/api/push/subscriptions', sw.location.origin), {
    method: 'POST',
    headers: { authorization: `Bearer ${device.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...fresh.toJSON(), deviceName: device.deviceName }),
  });
  if (res.status !== 201) return;
  const { id } = (await res.json()) as { id: string };
  await savePushDevice({ ...device, subscriptionId: id, endpoint: fresh.endpoint });
  await fetch(
    new URL(`/api/push/subscriptions/${encodeURIComponent(device.subscriptionId)}`, sw.location.origin),
    {
      method: 'DELETE',
      headers: { authorization: `Bearer ${device.token}` },
    },
  ).catch(() => undefined);
}
