import { type DeviceInquiry, type Inquiry, LIMITS, toDeviceInquiry } from '@hitl/protocol';
import type { InquiryStore } from '@hitl/store';
import type { Logger } from 'pino';
import type { Clock } from '../core/ports.js';
import type { DeviceSocket } from './device-socket.js';

/** Pending inquiries read from the store at a time: what a sync holds beyond the page in flight. */
const STORE_PAGE = 10;
/** Room for the packet around a page (event name, ack id, `serverTime`, `more`). */
const ENVELOPE_BYTES = 256;
/** How long a device may take to ack a page before it counts as not reading. */
export const SYNC_ACK_MS = 30_000;

export interface SyncDeps {
  store: InquiryStore;
  clock: Clock;
  logger: Logger;
  /** Ends a socket that stopped reading. */
  drop(socket: DeviceSocket, reason: string): void;
}

/** The user's pending inquiries, newest first, read a few at a time. */
async function* pendingOf(store: InquiryStore, userId: string): AsyncGenerator<Inquiry> {
  let cursor: string | undefined;
  do {
    const page = await store.list({ userId, status: 'pending', limit: STORE_PAGE, cursor });
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/**
 * Every (re)connect gets the user's pending list as `inquiry:sync` pages of at most
 * `LIMITS.syncPageBytes`; each page but the last waits for the device's ack, so a device that does
 * not read holds one page, not the whole list. A lone inquiry larger than a page
 * (input limits keep it under) would go alone.
 */
export async function syncDevice(socket: DeviceSocket, deps: SyncDeps): Promise<void> {
  try {
    let page: DeviceInquiry[] = [];
    let bytes = ENVELOPE_BYTES;
    for await (const inquiry of pendingOf(deps.store, socket.data.userId)) {
      const copy = toDeviceInquiry(inquiry, deps.clock.now());
      const size = Buffer.byteLength(JSON.stringify(copy)) + 1;
      if (page.length > 0 && bytes + size > LIMITS.syncPageBytes) {
        if (!(await sendPage(socket, page, true, deps))) return;
        page = [];
        bytes = ENVELOPE_BYTES;
      }
      page.push(copy);
      bytes += size;
    }
    await sendPage(socket, page, false, deps);
  } catch (error) {
    deps.logger.warn({ err: error, userId: socket.data.userId }, 'device sync failed');
  }
}

/** Sends one page; for all but the last, resolves false when the device did not ack in time. */
async function sendPage(
  socket: DeviceSocket,
  inquiries: DeviceInquiry[],
  more: boolean,
  deps: SyncDeps,
): Promise<boolean> {
  if (!socket.connected) return false;
  const sent = socket
    .timeout(SYNC_ACK_MS)
    .emitWithAck('inquiry:sync', { inquiries, serverTime: deps.clock.now(), more });
  // The last page's ack is not waited for: a device that reads but never acks still gets the list.
  if (!more) {
    sent.catch(() => undefined);
    return true;
  }
  try {
    await sent;
    return socket.connected;
  } catch {
    if (socket.connected) deps.drop(socket, 'sync page not acknowledged');
    return false;
  }
}
