import type { BrowserContext, CDPSession, Page, Worker } from 'playwright-core';
import { vi } from 'vitest';
import type { PushReceiver } from './push-receiver';

/**
 * The browser side of the stand-in push service (push-receiver.ts). Chromium subscribes through
 * Google's push service, which a headless browser in an offline sandbox cannot reach (incognito
 * contexts refuse at once, a profile waits for ever), so `PushManager.subscribe`/`getSubscription`
 * in the page return the subscription the test made, and record what the page asked for
 * (`window.__pushSubscribeCalls`). Everything else is the real browser: permission, the service
 * worker, notifications, IndexedDB, fetch.
 */
export async function standInPushService(context: BrowserContext, receiver: PushReceiver): Promise<void> {
  await context.addInitScript((sub) => {
    const KEY = '__testPushKey';
    const calls: { userVisibleOnly: boolean | undefined; key: number[] }[] = [];
    (window as unknown as { __pushSubscribeCalls: typeof calls }).__pushSubscribeCalls = calls;
    const make = (key: ArrayBuffer) =>
      ({
        endpoint: sub.endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true, applicationServerKey: key },
        toJSON: () => ({ endpoint: sub.endpoint, expirationTime: null, keys: sub.keys }),
        unsubscribe: async () => {
          localStorage.removeItem(KEY);
          return true;
        },
      }) as unknown as PushSubscription;
    PushManager.prototype.subscribe = async function subscribe(options?: PushSubscriptionOptionsInit) {
      const key = Array.from(new Uint8Array(options?.applicationServerKey as ArrayBuffer));
      calls.push({ userVisibleOnly: options?.userVisibleOnly, key });
      localStorage.setItem(KEY, JSON.stringify(key));
      return make(new Uint8Array(key).buffer);
    };
    PushManager.prototype.getSubscription = async function getSubscription() {
      const stored = localStorage.getItem(KEY);
      return stored ? make(new Uint8Array(JSON.parse(stored) as number[]).buffer) : null;
    };
  }, receiver.subscription);
}

/** What `registration.getNotifications()` reports, read inside the worker. */
export interface ShownInWorker {
  title: string;
  body: string;
  tag: string;
  requireInteraction: boolean;
  actions: { action: string; title: string }[];
}

/** The page's service worker, once it controls the page; its shows are watched (`watchShows`). */
export async function serviceWorkerOf(context: BrowserContext, page: Page): Promise<Worker> {
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, {
    timeout: 30_000,
  });
  const worker =
    context.serviceWorkers().find((w) => w.url().endsWith('/sw.js')) ??
    (await context.waitForEvent('serviceworker'));
  await watchShows(worker);
  return worker;
}

/**
 * Chromium deletes a notification for good when `getNotifications()` is called while that
 * notification's `showNotification()` is still pending (stored, not yet on display, so taken as
 * stale). The test's reads must not cause that: inside the worker, every `showNotification` is
 * tracked, and `__readNotifications` waits until none is pending before it reads. (A read already
 * under way when a show starts does no harm.) Installed once per worker; again after a restart.
 */
function watchShows(worker: Worker): Promise<void> {
  return worker.evaluate(() => {
    const scope = self as unknown as {
      __readNotifications?: unknown;
      registration: { getNotifications(filter?: object): Promise<unknown[]> };
    };
    if (scope.__readNotifications) return;
    const pending = new Set<Promise<unknown>>();
    type Show = (this: unknown, ...args: unknown[]) => Promise<unknown>;
    const proto = (
      self as unknown as { ServiceWorkerRegistration: { prototype: { showNotification: Show } } }
    ).ServiceWorkerRegistration.prototype;
    const original = proto.showNotification;
    proto.showNotification = function showNotification(...args) {
      const shown = original.apply(this, args);
      pending.add(shown);
      const done = () => pending.delete(shown);
      shown.then(done, done);
      return shown;
    };
    scope.__readNotifications = async (filter: object) => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
      return scope.registration.getNotifications(filter);
    };
  });
}

type WorkerScope = {
  /** `registration.getNotifications`, once no show is pending (`watchShows`). */
  __readNotifications(filter: {
    tag?: string;
  }): Promise<(Notification & { actions: ShownInWorker['actions'] })[]>;
  dispatchEvent(event: Event): boolean;
};

export async function notificationsIn(worker: Worker, tag?: string): Promise<ShownInWorker[]> {
  await watchShows(worker);
  return worker.evaluate(async (t) => {
    const scope = self as unknown as WorkerScope;
    const list = await scope.__readNotifications(t ? { tag: t } : {});
    return list.map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      requireInteraction: n.requireInteraction,
      actions: n.actions.map((a) => ({ action: a.action, title: a.title })),
    }));
  }, tag);
}

/**
 * Waits until the worker shows notifications with `tag` for which `ok` holds. On a timeout the error
 * says what the worker showed and, with `delivery`, what DevTools reported about the worker.
 */
export async function waitForNotifications(
  worker: Worker,
  tag: string,
  ok: (shown: ShownInWorker[]) => boolean,
  delivery?: { trace: string[] },
  timeoutMs = 30_000,
): Promise<ShownInWorker[]> {
  return vi.waitFor(
    async () => {
      const shown = await notificationsIn(worker, tag);
      if (ok(shown)) return shown;
      const trace = delivery ? `\nDevTools:\n${delivery.trace.join('\n')}` : '';
      throw new Error(`notifications for ${tag}: ${JSON.stringify(shown)}${trace}`);
    },
    { timeout: timeoutMs, interval: 200 },
  );
}

/**
 * A click on the notification (`action` = a button's id, '' = the notification itself). Chromium's
 * DevTools protocol can deliver a push but cannot click a notification, so the test dispatches the
 * `notificationclick` event the browser would, with the real notification object, inside the worker.
 * (Such an event is not trusted, so the worker's `waitUntil` is a no-op for it; the worker's answer
 * still goes out, which is what the test checks.)
 */
export async function clickNotification(worker: Worker, tag: string, action: string): Promise<void> {
  await watchShows(worker);
  return worker.evaluate(
    async ({ t, a }) => {
      const scope = self as unknown as WorkerScope;
      const [notification] = await scope.__readNotifications({ tag: t });
      if (!notification) throw new Error(`no notification tagged ${t}`);
      const Ctor = (self as unknown as { NotificationEvent: new (type: string, init: object) => Event })
        .NotificationEvent;
      scope.dispatchEvent(new Ctor('notificationclick', { notification, action: a }));
    },
    { t: tag, a: action },
  );
}

/**
 * The DevTools side: the worker's registration id, and `ServiceWorker.deliverPushMessage`. The
 * domain reports the registrations of this page's browser context only (each context numbers its
 * own from 0). `trace` keeps what it reported (versions, errors, deliveries) for a failure's message.
 */
export async function pushDelivery(
  cdp: CDPSession,
  origin: string,
): Promise<{ registrationId: string; trace: string[]; deliver(data: string): Promise<unknown> }> {
  const registrations = new Map<string, string>();
  const trace: string[] = [];
  const note = (line: string) => trace.push(`${new Date().toISOString()} ${line}`);
  cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => {
    for (const r of event.registrations) {
      note(`registration ${r.registrationId} ${r.scopeURL}${r.isDeleted ? ' deleted' : ''}`);
      if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
    }
  });
  cdp.on('ServiceWorker.workerVersionUpdated', (event) => {
    for (const v of event.versions) {
      note(`version ${v.versionId} of ${v.registrationId}: ${v.status}, ${v.runningStatus}`);
    }
  });
  cdp.on('ServiceWorker.workerErrorReported', ({ errorMessage: e }) => {
    note(`error in ${e.registrationId}: ${e.errorMessage} (${e.sourceURL}:${e.lineNumber})`);
  });
  await cdp.send('ServiceWorker.enable');
  const scope = `${origin}/`;
  await vi.waitFor(
    () => {
      if (!registrations.has(scope)) throw new Error(`no service worker registration for ${scope}`);
    },
    { timeout: 15_000, interval: 50 },
  );
  const registrationId = registrations.get(scope) ?? '';
  return {
    registrationId,
    trace,
    /** Hands a push's plaintext to the worker, as the browser does when its push service delivers one. */
    deliver: (data: string) => {
      note(`deliver to ${registrationId}: ${data.slice(0, 60)}…`);
      return cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data });
    },
  };
}
