import type { DeviceDelivery, DeviceInquiry } from '@hitl/protocol';
import type { DeviceDeliveryLog } from '@hitl/store';
import type { Logger } from 'pino';
import type { Clock } from '../core/ports.js';
import type { DeviceSocket } from './device-socket.js';

export interface RecorderOptions {
  /** How long an entry may wait for the next write. */
  flushMs?: number;
  /** A batch this large is written at once. */
  batchSize?: number;
  /** Entries held while the store is slow or down; beyond it new ones are dropped (and counted). */
  maxBuffered?: number;
}

/**
 * Writes device deliveries in batches, off the delivery path: `record` only appends to a buffer; a
 * timer (or a full batch) writes what gathered in one store round trip, one write at a time. A
 * delivery never waits on the store, and a store outage costs ops entries, never an inquiry.
 */
export class DeviceDeliveryRecorder {
  private buffer: DeviceDelivery[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dropped = 0;
  private readonly flushMs: number;
  private readonly batchSize: number;
  private readonly maxBuffered: number;

  constructor(
    private readonly log: DeviceDeliveryLog,
    private readonly logger: Logger,
    options: RecorderOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.maxBuffered = options.maxBuffered ?? 10_000;
  }

  record(entry: DeviceDelivery): void {
    if (this.buffer.length >= this.maxBuffered) {
      this.dropped++;
      return;
    }
    this.buffer.push(entry);
    if (this.buffer.length >= this.batchSize) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushMs).unref();
  }

  /** Writes what is buffered now; resolves once it (and every write before it) is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.buffer.splice(0, this.batchSize);
    if (batch.length > 0) {
      this.writing = this.writing.then(() =>
        this.log.add(batch).catch((error: unknown) => {
          this.logger.warn({ err: error, entries: batch.length }, 'device deliveries not recorded');
        }),
      );
    }
    if (this.buffer.length > 0) this.timer = setTimeout(() => void this.flush(), 0).unref();
    if (this.dropped > 0) {
      this.logger.warn({ dropped: this.dropped }, 'device deliveries dropped (store too slow)');
      this.dropped = 0;
    }
    return this.writing;
  }

  /** Writes everything still buffered (node shutdown). */
  async close(): Promise<void> {
    while (this.buffer.length > 0) await this.flush();
    await this.flush();
  }
}

/**
 * Records every inquiry this device socket is handed (`inquiry:new` as it is asked, each entry of
 * an `inquiry:sync` page): Socket.IO calls outgoing listeners for room broadcasts too, so a
 * broadcast from another node is recorded by the node that holds the socket.
 */
export function recordDeliveries(socket: DeviceSocket, recorder: DeviceDeliveryRecorder, clock: Clock): void {
  const { device, claims } = socket.data;
  const record = (inquiryId: string, event: DeviceDelivery['event']) =>
    recorder.record({
      inquiryId,
      deviceName: device.deviceName ?? 'device',
      deviceId: device.deviceId ?? socket.id,
      socketId: socket.id,
      ...(claims.jti ? { jti: claims.jti } : {}),
      via: 'socket',
      event,
      at: clock.now(),
    });
  socket.onAnyOutgoing((event: string, payload: unknown) => {
    if (event === 'inquiry:new') record((payload as DeviceInquiry).inquiryId, 'new');
    else if (event === 'inquiry:sync') {
      for (const inquiry of (payload as { inquiries: DeviceInquiry[] }).inquiries) {
        record(inquiry.inquiryId, 'sync');
      }
    }
  });
}
