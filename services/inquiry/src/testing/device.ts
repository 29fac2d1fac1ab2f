import type { DeviceInquiry, InquiryResolvedEvent, InquirySyncEvent } from '@hitl/protocol';
import { io, type Socket } from 'socket.io-client';

export interface TestDevice {
  socket: Socket;
  /** Every inquiry:new / inquiry:resolved / inquiry:sync received, in order. */
  received: { event: string; payload: unknown }[];
  nextNew(): Promise<DeviceInquiry>;
  nextResolved(): Promise<InquiryResolvedEvent>;
  /** The next `inquiry:updated` (a suggestion, a counted vote, an escalation). */
  nextUpdated(): Promise<DeviceInquiry>;
  synced: Promise<InquirySyncEvent>;
  emit<T = unknown>(event: string, payload: unknown): Promise<T>;
}

/**
 * A real socket.io-client device for tests; resolves once connected (rejects on `connect_error`).
 * Events are queued, so `nextNew()` never misses one that arrived before it was called.
 */
export async function connectDevice(url: string, token: string, deviceName: string): Promise<TestDevice> {
  const socket = io(url, { auth: { token, deviceName }, transports: ['websocket'], reconnection: false });
  const received: { event: string; payload: unknown }[] = [];
  const queues = new Map<string, unknown[]>();
  const waiters = new Map<string, ((v: unknown) => void)[]>();
  const push = (event: string, payload: unknown) => {
    received.push({ event, payload });
    const waiting = waiters.get(event)?.shift();
    if (waiting) waiting(payload);
    else queues.set(event, [...(queues.get(event) ?? []), payload]);
  };
  const next = <T>(event: string) =>
    new Promise<T>((resolve, reject) => {
      const queued = queues.get(event)?.shift();
      if (queued !== undefined) return resolve(queued as T);
      const timer = setTimeout(
        () => reject(new Error(`no ${event} within 5 s (${deviceName} on ${url})`)),
        5000,
      );
      waiters.set(event, [
        ...(waiters.get(event) ?? []),
        (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
      ]);
    });
  for (const event of ['inquiry:new', 'inquiry:resolved', 'inquiry:updated']) {
    socket.on(event, (payload: unknown) => push(event, payload));
  }
  // Sync pages are acked and add up; `synced` gets the whole list once the last page is in.
  let pages: InquirySyncEvent['inquiries'] = [];
  socket.on('inquiry:sync', (page: InquirySyncEvent, ack?: () => void) => {
    if (typeof ack === 'function') ack();
    pages = [...pages, ...page.inquiries];
    if (page.more === true) return;
    push('inquiry:sync', { ...page, inquiries: pages });
    pages = [];
  });
  const synced = next<InquirySyncEvent>('inquiry:sync');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => {
      // No device is handed out, so nobody can await its sync: its 5 s timer must not outlive the
      // refusal as an unhandled rejection (in a worker shared by several files it lands in another).
      synced.catch(() => undefined);
      socket.close();
      reject(error);
    });
  });
  return {
    socket,
    received,
    nextNew: () => next<DeviceInquiry>('inquiry:new'),
    nextResolved: () => next<InquiryResolvedEvent>('inquiry:resolved'),
    nextUpdated: () => next<DeviceInquiry>('inquiry:updated'),
    synced,
    emit: (event, payload) => socket.timeout(5000).emitWithAck(event, payload),
  };
}
