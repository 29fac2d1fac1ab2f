import { randomUUID } from 'node:crypto';
import type { RunningNode } from '@hitl/inquiry';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  agent,
  DESKTOP,
  endClosingPause,
  installPageClock,
  launchChromium,
  openApp,
  openContext,
  PHONE,
  screenshot,
  startWebNode,
  structured,
  token,
} from './harness';
import { type PushReceiver, startPushReceiver, vapidEnv } from './push-receiver';
import {
  clickNotification,
  notificationsIn,
  pushDelivery,
  serviceWorkerOf,
  standInPushService,
  waitForNotifications,
} from './push-standin';

/*
 * Web Push end to end (needs the node's push routes, /api/push/*): the phone page turns
 * notifications on through its button; the node pushes to a loopback push service (push-receiver.ts)
 * that decrypts each message with the subscription's keys; the test hands it to the phone's real
 * service worker with `ServiceWorker.deliverPushMessage`; the worker's notification and buttons are
 * read inside the worker; a button answers through REST with the token the page stored for the
 * worker; the agent's MCP call resumes and the desktop's card closes; the `resolved` push closes the
 * notification.
 */

const newUser = () => `u-${randomUUID().slice(0, 8)}`;
const card = (page: Page, text: string) => page.locator('article', { hasText: text });
const connected = (page: Page) => page.locator('[data-status="connected"]').waitFor();

type PushJson = { type: string; inquiryId: string; [k: string]: unknown };
const json = (push: { json: unknown }) => push.json as PushJson;

describe('Web Push to the service worker in headless Chromium', () => {
  let node: RunningNode;
  let browser: Browser;
  let receiver: PushReceiver;
  const vapid = vapidEnv();
  beforeAll(async () => {
    node = await startWebNode({
      ...vapid,
      HITL_PUSH_ALLOW_HTTP_HOSTS: '127.0.0.1',
      HITL_DEVICE_TIMEOUT_MS: '120000',
      HITL_SERVICE_TIMEOUT_MS: '150000',
      HITL_CLIENT_TIMEOUT_MS: '180000',
    });
  });
  // Each test (and each try of it) has its own push service: its own endpoint and keys, so the node's
  // pushes for an earlier test's user (every user here subscribes from the same stand-in) can never be
  // taken for this test's. With one receiver for the file, `receiver.next` found the push of an
  // earlier try first: on a retry the worker showed the old try's inquiry, and its button answered that
  // inquiry with the new user's token (404, not 409). And a browser per test: nothing of an earlier
  // test's profile is left.
  beforeEach(async () => {
    receiver = await startPushReceiver();
    browser = await launchChromium();
  });
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    await browser?.close();
    await receiver?.close();
  });
  afterAll(async () => {
    await node?.close();
  });

  const open = async (user: string, name: string, options: object, push = false) => {
    const context = await openContext(browser, node, options);
    contexts.push(context);
    if (push) await standInPushService(context, receiver);
    else await installPageClock(context);
    const opened = await openApp(context, node, `token=${await token(node, user, 'device')}&device=${name}`);
    await connected(opened.page);
    return { ...opened, context };
  };

  /** The phone, with notifications turned on through its button. */
  const phoneWithPush = async (user: string) => {
    const phone = await open(user, 'Phone', PHONE, true);
    const worker = await serviceWorkerOf(phone.context, phone.page);
    await phone.page.getByRole('button', { name: 'Enable notifications' }).click();
    await phone.page
      .getByRole('status')
      .filter({ hasText: 'Notifications are on' })
      .waitFor({ timeout: 20_000 });
    await phone.page.getByRole('button', { name: 'Turn off notifications' }).waitFor();
    return { ...phone, worker };
  };

  it('turns on from the button, shows the question with its options, answers from a button; the agent resumes, the desktop card closes', async () => {
    const user = newUser();
    const phone = await phoneWithPush(user);
    // The page subscribed with the node's own key, for notifications the person sees.
    const calls = await phone.page.evaluate(
      () =>
        (window as unknown as { __pushSubscribeCalls: { userVisibleOnly: boolean; key: number[] }[] })
          .__pushSubscribeCalls,
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]?.userVisibleOnly).toBe(true);
    expect(Buffer.from(calls[0]?.key ?? []).toString('base64url')).toBe(vapid.HITL_VAPID_PUBLIC_KEY);
    await phone.page.getByText('also with this page closed').waitFor();
    await screenshot(phone.page, 'push-enabled-phone');

    const desktop = await open(user, 'Desktop', DESKTOP);
    const cdpPage = await phone.context.newPage();
    const delivery = await pushDelivery(await phone.context.newCDPSession(cdpPage), node.url);
    // The app page is closed: the worker alone gets the question.
    await phone.page.close();

    const mcp = await agent(node, user);
    const call = mcp.callTool(
      {
        name: 'send_inquiry',
        arguments: { question: 'Deploy **v2** to production\u202e now?', options: ['Ship it', 'Hold'] },
      },
      undefined,
      { timeout: 120_000 },
    );
    const pushed = await receiver.next((p) => json(p).type === 'inquiry' && json(p).question !== undefined);
    const inquiryId = json(pushed).inquiryId;
    expect(json(pushed)).toMatchObject({ kind: 'question', options: ['Ship it', 'Hold'] });
    expect(pushed.headers.urgency).toBe('high');
    expect(pushed.headers.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    await card(desktop.page, 'Deploy').waitFor();

    await delivery.deliver(pushed.text);
    const [shown] = await waitForNotifications(
      phone.worker,
      inquiryId,
      (list) => list.length === 1,
      delivery,
    );
    expect(shown?.title).toBe('Question for you');
    // Plain text: markdown marks dropped, the bidi override shown as an escape.
    expect(shown?.body).toMatch(/^Deploy v2 to production\\u202e now\? \(answer by /);
    expect(shown?.tag).toBe(inquiryId);
    expect(shown?.requireInteraction).toBe(true);
    expect(shown?.actions).toEqual([
      { action: 'option-0', title: 'Ship it' },
      { action: 'option-1', title: 'Hold' },
    ]);

    await clickNotification(phone.worker, inquiryId, 'option-0');
    const result = structured(await call);
    expect(result.status).toBe('answered');
    expect(result.answer).toBe('Ship it');
    // The card says who answered (the history below it says so too: look in the card).
    await card(desktop.page, 'Deploy').getByText('Answered on Phone').waitFor({ timeout: 15_000 });
    await endClosingPause(desktop.page);
    await card(desktop.page, 'Deploy').waitFor({ state: 'detached', timeout: 15_000 });
    expect(await notificationsIn(phone.worker, inquiryId)).toEqual([]);

    // The resolved push (same Topic) reaches the worker too, and leaves nothing behind.
    const resolved = await receiver.next(
      (p) => json(p).type === 'resolved' && json(p).inquiryId === inquiryId,
    );
    expect(resolved.headers.topic).toBe(pushed.headers.topic);
    expect(json(resolved)).toMatchObject({ status: 'answered' });
    await delivery.deliver(resolved.text);
    expect(await notificationsIn(phone.worker, inquiryId)).toEqual([]);

    // Pushes from two nodes can cross: a question pushed after it ended is shown, the worker asks the
    // node (GET /api/inquiries/:id) and closes it again.
    const asked = phone.context.waitForEvent('requestfinished', {
      predicate: (request) =>
        request.serviceWorker() !== null && request.url().endsWith(`/api/inquiries/${inquiryId}`),
      timeout: 30_000,
    });
    await delivery.deliver(pushed.text);
    await asked;
    await waitForNotifications(phone.worker, inquiryId, (shown) => shown.length === 0);
    await mcp.close();
  });

  // Many steps through two pages, a worker and the node: on a loaded machine it may take longer than
  // the file's default 60 s; each step keeps its own generous wait.
  // No retry: this test once showed no notification in about one CI run in four although the push
  // reached the worker. The test's own polling did it: a getNotifications() while the worker's
  // showNotification() is pending makes Chromium delete that notification, so the reads now wait for
  // pending shows (push-standin.ts, watchShows).
  it('an approval gets Approve / Reject; a click opens its card; answered on the desktop, a late button says so and the resolved push closes it', {
    timeout: 120_000,
  }, async () => {
    const user = newUser();
    const phone = await phoneWithPush(user);
    const delivery = await pushDelivery(await phone.context.newCDPSession(phone.page), node.url);
    const desktop = await open(user, 'Desktop', DESKTOP);
    const mcp = await agent(node, user);
    const call = mcp.callTool(
      {
        name: 'send_inquiry',
        arguments: {
          question: 'May I delete the staging database?',
          kind: 'approval',
          action: { server: 'db', tool: 'drop', arguments: { name: 'staging' } },
        },
      },
      undefined,
      { timeout: 120_000 },
    );
    const pushed = await receiver.next((p) => json(p).type === 'inquiry' && json(p).kind === 'approval');
    const inquiryId = json(pushed).inquiryId;
    await delivery.deliver(pushed.text);
    const [shown] = await waitForNotifications(
      phone.worker,
      inquiryId,
      (list) => list.length === 1,
      delivery,
    );
    expect(shown?.title).toBe('Approval needed');
    expect(shown?.actions.map((a) => a.title)).toEqual(['Approve', 'Reject']);

    // A plain click on the notification brings the open page to that card.
    await card(phone.page, 'staging database').waitFor();
    await clickNotification(phone.worker, inquiryId, '');
    await phone.page.waitForFunction(
      (id) => (document.activeElement as HTMLElement | null)?.dataset.inquiryId === id,
      inquiryId,
      { timeout: 20_000 },
    );
    expect(await notificationsIn(phone.worker, inquiryId)).toEqual([]);

    // Shown again (the push is delivered a second time), then the desktop answers first.
    await delivery.deliver(pushed.text);
    await waitForNotifications(phone.worker, inquiryId, (list) => list.length === 1, delivery);
    await card(desktop.page, 'staging database').getByRole('button', { name: 'Reject' }).click();
    expect(structured(await call)).toMatchObject({ status: 'answered', answer: 'reject' });

    // A button pressed on the stale notification loses (409) and says who answered.
    await clickNotification(phone.worker, inquiryId, 'approve');
    const [late] = await waitForNotifications(
      phone.worker,
      inquiryId,
      (list) => list[0]?.title === 'Answer not sent',
      delivery,
    );
    expect(late?.body).toBe('Already answered on Desktop.');

    const resolved = await receiver.next(
      (p) => json(p).type === 'resolved' && json(p).inquiryId === inquiryId,
    );
    await delivery.deliver(resolved.text);
    await waitForNotifications(phone.worker, inquiryId, (list) => list.length === 0, delivery);
    await mcp.close();
  });

  // A `resolved` push for one question (its getNotifications) arriving while the next question's
  // notification is being shown lost that notification (Chromium drops a notification read while its
  // show is pending); the worker now shows and reads one at a time.
  it('a question pushed together with the end of another is still shown', { timeout: 120_000 }, async () => {
    const user = newUser();
    const phone = await phoneWithPush(user);
    const delivery = await pushDelivery(await phone.context.newCDPSession(phone.page), node.url);
    const mcp = await agent(node, user);
    void mcp
      .callTool({ name: 'send_inquiry', arguments: { question: 'Ready?' } }, undefined, { timeout: 120_000 })
      .catch(() => undefined);
    const pushed = json(await receiver.next((p) => json(p).type === 'inquiry'));
    for (let round = 0; round < 8; round++) {
      // Unknown to the node (404), so the worker's status check leaves it up.
      const tag = `${pushed.inquiryId}-${round}`;
      await Promise.all([
        delivery.deliver(JSON.stringify({ ...pushed, inquiryId: tag })),
        delivery.deliver(
          JSON.stringify({ type: 'resolved', inquiryId: `ended-${round}`, status: 'answered' }),
        ),
      ]);
      await waitForNotifications(phone.worker, tag, (list) => list.length === 1, delivery, 10_000);
    }
    await mcp.close();
  });

  it('off unsubscribes and deletes the subscription on the node; the worker forgets the token', async () => {
    const user = newUser();
    const phone = await phoneWithPush(user);
    const deviceToken = await token(node, user, 'device');
    const list = async () => {
      const res = await fetch(`${node.url}/api/push/subscriptions`, {
        headers: { authorization: `Bearer ${deviceToken}` },
      });
      return ((await res.json()) as { items: { endpoint: string; deviceName?: string }[] }).items;
    };
    expect(await list()).toMatchObject([{ endpoint: receiver.subscription.endpoint, deviceName: 'Phone' }]);

    await phone.page.getByRole('button', { name: 'Turn off notifications' }).click();
    await phone.page.getByRole('status').filter({ hasText: 'Notifications are off.' }).waitFor();
    await phone.page.getByRole('button', { name: 'Enable notifications' }).waitFor();
    expect(await list()).toEqual([]);
    const stored = await phone.worker.evaluate(
      () =>
        new Promise<unknown>((resolve, reject) => {
          const req = indexedDB.open('hitl-push', 1);
          req.onsuccess = () => {
            const get = req.result.transaction('device').objectStore('device').get('current');
            get.onsuccess = () => resolve(get.result ?? null);
            get.onerror = () => reject(get.error);
          };
          req.onerror = () => reject(req.error);
        }),
    );
    expect(stored).toBeNull();
  });
});
