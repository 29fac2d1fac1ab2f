import {
  type AnswerExtras,
  type DeviceAck,
  type DeviceInquiry,
  type DeviceToServerEvents,
  type InquiryResponse,
  type InquiryStatus,
  isFinalRefusal,
  type ResolvedBy,
  type ServerToDeviceEvents,
  SOCKET_PATH,
  socketRefusalOf,
} from '@hitl/protocol';
import { io, type Socket } from 'socket.io-client';
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
import { type Clock, systemClock } from './clock.js';
import { DeviceTimer } from './device-timer.js';
import { Listeners } from './listeners.js';
import {
  applyNew,
  applyResolved,
  applySync,
  applyUpdated,
  applyVotes,
  emptyPendingState,
  newestFirst,
  type PendingState,
} from './pending.js';
import type { DeviceClient, DeviceClientEvents, DeviceClientOptions, DeviceSnapshot } from './types.js';

type DeviceSocket = Socket<ServerToDeviceEvents, DeviceToServerEvents>;
type TimedSocket = ReturnType<DeviceSocket['timeout']>;
type Ending = 'inquiry:answer' | 'inquiry:refuse' | 'inquiry:timeout';

const unavailable = (message: string): DeviceAck => ({ ok: false, error: { code: 'unavailable', message } });

/**
 * A device of one user: keeps the pending list in sync over Socket.IO, answers and refuses, and runs
 * the tier-1 device timer (skew-corrected, one report per inquiry).
 * @example
 * const device = createDeviceClient({ url: location.origin, token, deviceName: 'Laptop' });
 * device.on('new', (i) => console.log(i.question));
 * await device.answer(id, 'yes');
 */
export function createDeviceClient(options: DeviceClientOptions): DeviceClient {
  const client = new SocketDeviceClient(options);
  if (options.autoConnect !== false) client.connect();
  return client;
}

class SocketDeviceClient implements DeviceClient {
  readonly deviceId: string;
  readonly deviceName: string;
  private readonly clock: Clock;
  private readonly ackTimeoutMs: number;
  private readonly backoff: BackoffOptions;
  private readonly useTimer: boolean;
  private readonly socket: DeviceSocket;
  private readonly timer: DeviceTimer;
  private readonly events = new Listeners<DeviceClientEvents>();
  private readonly watchers = new Set<() => void>();
  private state: PendingState = emptyPendingState;
  private snapshot: DeviceSnapshot = { status: 'connecting', synced: false, inquiries: [] };
  private seenFirstSync = false;
  /** `inquiry:sync` pages of the current connection so far, and what arrived live meanwhile. */
  private syncPages: DeviceInquiry[] = [];
  private readonly liveDuringSync = new Set<string>();
  private retryHandle: unknown;
  private attempt = 0;
  private closed = false;

  constructor(options: DeviceClientOptions) {
    this.clock = options.clock ?? systemClock;
    this.deviceId = options.deviceId ?? globalThis.crypto.randomUUID();
    this.deviceName = options.deviceName;
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
    this.useTimer = options.deviceTimer !== false;
    this.socket = io(options.url, {
      path: SOCKET_PATH,
      transports: options.transports ?? ['websocket'],
      auth: { token: options.token, deviceName: this.deviceName, deviceId: this.deviceId },
      autoConnect: false,
      forceNew: true,
      reconnectionDelay: this.backoff.baseMs,
      reconnectionDelayMax: this.backoff.maxMs,
      randomizationFactor: this.backoff.jitter,
    });
    this.timer = new DeviceTimer({
      clock: this.clock,
      canSend: () => this.socket.connected && this.snapshot.synced,
      send: (inquiryId) => void this.reportTimeout(inquiryId),
    });
    this.wireConnection();
    this.wireInquiries();
  }

  getSnapshot = (): DeviceSnapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.watchers.add(listener);
    return () => {
      this.watchers.delete(listener);
    };
  };

  on<K extends keyof DeviceClientEvents>(event: K, listener: DeviceClientEvents[K]): () => void {
    return this.events.on(event, listener);
  }

  answer(inquiryId: string, response: InquiryResponse, extras: AnswerExtras = {}): Promise<DeviceAck> {
    return this.send('inquiry:answer', inquiryId, (s) =>
      s.emitWithAck('inquiry:answer', { inquiryId, response, ...extras }),
    );
  }

  refuse(inquiryId: string, reason?: string): Promise<DeviceAck> {
    return this.send('inquiry:refuse', inquiryId, (s) =>
      s.emitWithAck('inquiry:refuse', { inquiryId, ...(reason ? { reason } : {}) }),
    );
  }

  connect(): void {
    if (this.closed || this.socket.connected) return;
    this.publish({ status: 'connecting' });
    this.socket.connect();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clock.clearTimeout(this.retryHandle);
    this.timer.stop();
    this.socket.disconnect();
    this.publish({ status: 'closed', synced: false });
    this.events.clear();
  }

  /** A new snapshot after every change; the timer follows the pending list. */
  private publish(patch: Partial<DeviceSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch, inquiries: newestFirst(this.state) };
    if (this.snapshot.status === 'connected') {
      delete this.snapshot.error;
      delete this.snapshot.errorCode;
    }
    if (this.useTimer && !this.closed) {
      // An inquiry with an answer window has no device timer: the service times it out at answerBy.
      this.timer.track([...this.state.inquiries.values()].filter((i) => i.deadlines.answerBy === undefined));
    }
    for (const watcher of [...this.watchers]) watcher();
  }

  private wireConnection(): void {
    const { socket } = this;
    socket.on('connect', () => {
      this.attempt = 0;
      this.syncPages = [];
      this.liveDuringSync.clear();
      this.publish({ status: 'connected', synced: false });
    });
    socket.on('disconnect', (reason) => {
      if (this.closed) return;
      this.publish({ status: 'reconnecting', synced: false, error: `disconnected (${reason})` });
      // The server dropped us on purpose (e.g. a node shutting down): Socket.IO leaves that to us.
      if (reason === 'io server disconnect') this.retryLater();
    });
    socket.on('connect_error', (error) => {
      if (this.closed) return;
      if (socket.active) return this.publish({ status: 'reconnecting', error: error.message });
      // Refused by the server's handshake check: a bad token stays bad, anything else is retried.
      const refusal = socketRefusalOf(error);
      if (isFinalRefusal(refusal)) {
        return this.publish({ status: 'rejected', error: error.message, errorCode: refusal?.code });
      }
      this.publish({ status: 'reconnecting', error: error.message });
      this.retryLater();
    });
  }

  private wireInquiries(): void {
    const { socket } = this;
    socket.on('inquiry:sync', (event, ack) => {
      // Pages add up until the one without `more`; the ack asks the server for the next page.
      this.syncPages.push(...event.inquiries);
      if (typeof ack === 'function') ack();
      if (event.more === true) return;
      const result = applySync(
        this.state,
        { inquiries: this.syncPages },
        this.clock.now(),
        this.liveDuringSync,
      );
      this.syncPages = [];
      this.liveDuringSync.clear();
      this.state = result.state;
      const announce = this.seenFirstSync;
      this.seenFirstSync = true;
      this.publish({ synced: true });
      if (announce) for (const inquiry of result.added) this.events.emit('new', inquiry);
    });
    socket.on('inquiry:new', (inquiry) => {
      const result = applyNew(this.state, inquiry, this.clock.now());
      if (!result.added) return;
      if (!this.snapshot.synced) this.liveDuringSync.add(inquiry.inquiryId);
      this.state = result.state;
      this.publish({});
      this.events.emit('new', result.added);
    });
    socket.on('inquiry:updated', (inquiry) => {
      const next = applyUpdated(this.state, inquiry, this.clock.now());
      if (next === this.state) return;
      this.state = next;
      this.publish({});
    });
    socket.on('inquiry:resolved', (event) => this.resolve(event));
  }

  private retryLater(): void {
    this.clock.clearTimeout(this.retryHandle);
    const delay = backoffDelay(this.attempt++, this.backoff, Math.random);
    this.retryHandle = this.clock.setTimeout(() => {
      if (!this.closed) this.socket.connect();
    }, delay);
  }

  private async reportTimeout(inquiryId: string): Promise<void> {
    const ack = await this.send('inquiry:timeout', inquiryId, (s) =>
      s.emitWithAck('inquiry:timeout', { inquiryId }),
    );
    this.events.emit('timeout', inquiryId, ack);
  }

  /** Sends one device event and waits (bounded) for the server's ack; never throws. */
  private async send(event: Ending, inquiryId: string, emit: (s: TimedSocket) => Promise<DeviceAck>) {
    if (!this.socket.connected) return unavailable('not connected to the server; try again once reconnected');
    let ack: DeviceAck;
    try {
      ack = await emit(this.socket.timeout(this.ackTimeoutMs));
    } catch {
      return unavailable(`the server did not confirm within ${Math.round(this.ackTimeoutMs / 1000)} s`);
    }
    this.settleFromAck(inquiryId, event, ack);
    return ack;
  }

  /** Applies an ending learned from this device's own ack, before (or instead of) the broadcast. */
  private settleFromAck(inquiryId: string, event: Ending, ack: DeviceAck): void {
    if (ack.ok && ack.status === 'pending') {
      // A vote on a quorum approval was counted: the card stays, with the votes so far.
      const next = applyVotes(this.state, inquiryId, ack.votes ?? []);
      if (next !== this.state) {
        this.state = next;
        this.publish({});
      }
      return;
    }
    if (ack.ok) {
      const kind = event === 'inquiry:timeout' ? 'device-timer' : 'human';
      const resolvedBy: ResolvedBy = { kind, deviceId: this.deviceId, deviceName: this.deviceName };
      this.resolve({ inquiryId, status: ack.status, resolvedBy });
    } else if (ack.error.code === 'already_resolved' && ack.status) {
      const by = ack.resolvedBy ? { resolvedBy: ack.resolvedBy } : {};
      this.resolve({ inquiryId, status: ack.status, ...by });
    } else if (ack.error.code === 'not_found') {
      this.state = applyResolved(this.state, { inquiryId }).state;
      this.publish({});
    }
  }

  private resolve(event: { inquiryId: string; status: InquiryStatus; resolvedBy?: ResolvedBy }): void {
    const result = applyResolved(this.state, event);
    if (result.state === this.state) return;
    this.state = result.state;
    this.publish({});
    this.events.emit('resolved', {
      ...event,
      ...(result.removed ? { inquiry: result.removed } : {}),
      byThisDevice: event.resolvedBy?.deviceId === this.deviceId,
    });
  }
}
