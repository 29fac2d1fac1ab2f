/**
 * The credential the service worker answers with. A worker cannot read `localStorage`, so when the
 * person turns push notifications on, the page copies the device token (and the device's name and the
 * subscription's id) into IndexedDB, which both can read; turning them off or signing out deletes it.
 * docs/SECURITY.md says what this changes. Works in a page and in a worker (IndexedDB only).
 */
const DB = 'hitl-push';
const STORE = 'device';
const KEY = 'current';

export interface PushDevice {
  /** The device token (`Authorization: Bearer`). */
  token: string;
  deviceName: string;
  /** The id `POST /api/push/subscriptions` gave, to delete it when turned off. */
  subscriptionId: string;
  /** The push endpoint it was saved for (a new one means the browser re-subscribed). */
  endpoint: string;
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const request = work(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

export async function loadPushDevice(): Promise<PushDevice | null> {
  const value: unknown = await run('readonly', (store) => store.get(KEY));
  return isPushDevice(value) ? value : null;
}

export async function savePushDevice(device: PushDevice): Promise<void> {
  await run('readwrite', (store) => store.put(device, KEY));
}

export async function clearPushDevice(): Promise<void> {
  await run('readwrite', (store) => store.delete(KEY));
}

function isPushDevice(value: unknown): value is PushDevice {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.token === 'string' &&
    typeof v.deviceName === 'string' &&
    typeof v.subscriptionId === 'string' &&
    typeof v.endpoint === 'string'
  );
}
