import { clearPushDevice, loadPushDevice, savePushDevice } from '../sw/device-store';
import { base64urlToBytes, browserFacts, PUSH_WORDS, pushSupport } from './push-support';

/** Turning notifications on or off: whether it worked, and in words why not. */
export type PushResult = { ok: true; message: string } | { ok: false; message: string };

interface PushContext {
  /** The node's origin (the page's own: push is offered only where the node serves the page). */
  origin: string;
  token: string;
  deviceName: string;
}

/** How long to wait for the service worker before telling the person it is not there. */
const WORKER_WAIT_MS = 10_000;

async function registration(): Promise<ServiceWorkerRegistration | null> {
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), WORKER_WAIT_MS));
  return Promise.race([navigator.serviceWorker.ready, timeout]);
}

async function serverError(res: Response): Promise<string> {
  const body = (await res.json().catch(() => undefined)) as { error?: { message?: unknown } } | undefined;
  const message = typeof body?.error?.message === 'string' ? `: ${body.error.message}` : '';
  return `The server refused (${res.status}${message}).`;
}

/**
 * "Enable notifications": permission (from the click), the node's VAPID key, a push
 * subscription from the browser, `POST /api/push/subscriptions`, and the device token copied where the
 * service worker can read it. Every step that fails says so and undoes what the steps before it did.
 */
export async function enablePush({ origin, token, deviceName }: PushContext): Promise<PushResult> {
  const support = pushSupport(browserFacts());
  if (support !== 'supported') return { ok: false, message: PUSH_WORDS[support] };
  const permission = await Notification.requestPermission();
  if (permission === 'denied') return { ok: false, message: PUSH_WORDS.denied };
  if (permission !== 'granted') return { ok: false, message: PUSH_WORDS.dismissed };
  const reg = await registration();
  if (!reg) return { ok: false, message: PUSH_WORDS['no-worker'] };

  const auth = { authorization: `Bearer ${token}` };
  let keyRes: Response;
  try {
    keyRes = await fetch(`${origin}/api/push/key`, { headers: auth, cache: 'no-store' });
  } catch {
    return { ok: false, message: 'The server could not be reached. Check the connection and try again.' };
  }
  if (keyRes.status === 404) return { ok: false, message: 'This server does not send push notifications.' };
  if (!keyRes.ok) return { ok: false, message: await serverError(keyRes) };
  const { publicKey } = (await keyRes.json()) as { publicKey?: unknown };
  if (typeof publicKey !== 'string') return { ok: false, message: 'The server sent no push key.' };

  let subscription: PushSubscription;
  try {
    subscription = await subscribe(reg, publicKey);
  } catch (error) {
    const name = error instanceof DOMException ? error.name : '';
    if (name === 'NotAllowedError') return { ok: false, message: PUSH_WORDS.denied };
    const detail = error instanceof Error ? ` (${error.message})` : '';
    return { ok: false, message: `The browser’s push service did not answer${detail}. Try again later.` };
  }

  let saved: Response;
  try {
    saved = await fetch(`${origin}/api/push/subscriptions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ...subscription.toJSON(), deviceName }),
    });
  } catch {
    await subscription.unsubscribe().catch(() => false);
    return { ok: false, message: 'The server could not be reached. Check the connection and try again.' };
  }
  if (saved.status !== 201) {
    const message = await serverError(saved);
    await subscription.unsubscribe().catch(() => false);
    return { ok: false, message };
  }
  const { id } = (await saved.json()) as { id: string };
  await savePushDevice({ token, deviceName, subscriptionId: id, endpoint: subscription.endpoint });
  return {
    ok: true,
    message: 'Notifications are on: questions reach this device even when the page is closed.',
  };
}

/** A subscription for this node's key: the browser's current one when it was made with that key. */
async function subscribe(reg: ServiceWorkerRegistration, publicKey: string): Promise<PushSubscription> {
  const applicationServerKey = base64urlToBytes(publicKey);
  const current = await reg.pushManager.getSubscription();
  if (current) {
    const key = current.options.applicationServerKey;
    if (key && sameBytes(new Uint8Array(key), applicationServerKey)) return current;
    await current.unsubscribe();
  }
  return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * Off: the browser's subscription is dropped, `DELETE /api/push/subscriptions/:id` tells the node,
 * and the stored token is deleted. Local steps always happen; a node that cannot be told is said.
 */
export async function disablePush(origin: string): Promise<PushResult> {
  const device = await loadPushDevice().catch(() => null);
  const reg = 'serviceWorker' in navigator ? await navigator.serviceWorker.getRegistration() : undefined;
  const subscription = await reg?.pushManager.getSubscription().catch(() => null);
  await subscription?.unsubscribe().catch(() => false);
  await clearPushDevice().catch(() => undefined);
  if (!device) return { ok: true, message: 'Notifications are off.' };
  try {
    const res = await fetch(`${origin}/api/push/subscriptions/${encodeURIComponent(device.subscriptionId)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${device.token}` },
    });
    if (res.status === 204 || res.status === 404) return { ok: true, message: 'Notifications are off.' };
    return {
      ok: false,
      message: `Notifications are off here, but ${(await serverError(res)).toLowerCase()}`,
    };
  } catch {
    return {
      ok: false,
      message: 'Notifications are off here; the server could not be told (it stops once the browser does).',
    };
  }
}

/**
 * Whether push is on for this device and this sign-in: a stored device for the same token and a
 * browser subscription at the same endpoint.
 */
export async function pushIsOn(token: string): Promise<boolean> {
  if (pushSupport(browserFacts()) !== 'supported') return false;
  const device = await loadPushDevice().catch(() => null);
  if (!device || device.token !== token) return false;
  const reg = await navigator.serviceWorker.getRegistration();
  const subscription = await reg?.pushManager.getSubscription().catch(() => null);
  return subscription?.endpoint === device.endpoint;
}
