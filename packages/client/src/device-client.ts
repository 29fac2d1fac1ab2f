import {
  type DeviceAck,
  type DeviceToServerEvents,
  type InquiryResponse,
  type InquiryStatus,
  type ResolvedBy,
  type ServerToDeviceEvents,
  SOCKET_PATH,
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
  emptyPendingState,
  newestFirst,
  type PendingInquiry,
  type PendingState,
} from './pending.js';

export interface DeviceClientOptions {
  /** The node's origin, e.g. `http://127.0.0.1:8787` (Socket.IO path `/socket.io`). */
  url: string;
  /** A device token (role `device`). */
  token: string;
  /** Shown to the user's other devices ("answered on <deviceName>"). */
  deviceName: string;
  /** A stable id across reconnects; a random one per client when absent. */
  deviceId?: string;
  /** Default `['websocket']`: no sticky sessions needed behind a load balancer. */
  transports?: ('websocket' | 'polling' | 'webtransport')[];
  /** Report the tier-1 deadline (`inquiry:timeout`) when it passes; default true. */
  deviceTimer?: boolean;
  /** How long to wait for the server to confirm an answer, refusal or timeout; default 10 s. */
  ackTimeoutMs?: number;
  backoff?: Partial<BackoffOptions>;
  /** Connect at once (default) or wait for `connect()`. */
  autoConnect?: boolean;
  clock?: Clock;
}

export type ConnectionStatus = 'connecting' | 'connected' | 'reconnecting' | 'rejected' | 'closed';

/** What a UI renders; a new object on every change (fits React's `useSyncExternalStore`). */
export interface DeviceSnapshot {
  status: ConnectionStatus;
  /** Why the last connection attempt failed, while not connected. */
  error?: string;
  /** True once the pending list was synced on the current connection. */
  synced: boolean;
  /** Pending inquiries, newest first. */
  inquiries: readonly PendingInquiry[];
}

/** An inquiry that ended, and who ended it. */
export interface ResolvedNotice {
  inquiryId: string;
  status: InquiryStatus;
  resolvedBy?: ResolvedBy;
  /** The copy this device held, if it held one. */
  inquiry?: PendingInquiry;
  /** True when this device's own answer, refusal or timer ended it. */
  byThisDevice: boolean;
}

export interface DeviceClientEvents {
  /** An inquiry this device had not seen (after the first sync of the session). */
  new: (inquiry: PendingInquiry) => void;
  resolved: (notice: ResolvedNotice) => void;
  /** This device reported a deadline; `ack` is the server's reply. */
  timeout: (inquiryId: string, ack: DeviceAck) => void;
}

export interface DeviceClient {
  readonly deviceId: string;
  readonly deviceName: string;
  getSnapshot(): DeviceSnapshot;
  /** Called after every snapshot change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  on<K extends keyof DeviceClientEvents>(event: K, listener: DeviceClientEvents[K]): () => void;
  /** Answers an inquiry: text, or an object keyed by question id for a form. */
  answer(inquiryId: string, response: InquiryResponse): Promise<DeviceAck>;
  /** "I'd rather not say". */
  refuse(inquiryId: string): Promise<DeviceAck>;
  connect(): void;
  /** Disconnects for good and stops every timer. */
  close(): void;
}

type DeviceSocket = Socket<ServerToDeviceEvents, DeviceToServerEvents>;
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
  const clock = options.clock ?? systemClock;
  const deviceId = options.deviceId ?? globalThis.crypto.randomUUID();
  const { deviceName } = options;
  const ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
  const backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  const events = new Listeners<DeviceClientEvents>();
  const watchers = new Set<() => void>();
  const socket: DeviceSocket = io(options.url, {
    path: SOCKET_PATH,
    transports: options.transports ?? ['websocket'],
    auth: { token: options.token, deviceName, deviceId },
    autoConnect: false,
    forceNew: true,
    reconnectionDelay: backoff.baseMs,
    reconnectionDelayMax: backoff.maxMs,
    randomizationFactor: backoff.jitter,
  });

  let state: PendingState = emptyPendingState;
  let seenFirstSync = false;
  let snapshot: DeviceSnapshot = { status: 'connecting', synced: false, inquiries: [] };
  let retryHandle: unknown;
  let attempt = 0;
  let closed = false;

  const publish = (patch: Partial<DeviceSnapshot>) => {
    snapshot = { ...snapshot, ...patch, inquiries: newestFirst(state) };
    if (snapshot.status === 'connected') delete snapshot.error;
    if (options.deviceTimer !== false && !closed) timer.track(state.inquiries.values());
    for (const watcher of [...watchers]) watcher();
  };

  const timer = new DeviceTimer({
    clock,
    canSend: () => socket.connected && snapshot.synced,
    send: (inquiryId) => {
      void send('inquiry:timeout', inquiryId, (s) => s.emitWithAck('inquiry:timeout', { inquiryId })).then(
        (ack) => events.emit('timeout', inquiryId, ack),
      );
    },
  });

  /** Applies an ending this device learned from its own ack, before (or instead of) the broadcast. */
  const settleFromAck = (inquiryId: string, event: Ending, ack: DeviceAck) => {
    if (ack.ok) {
      const kind = event === 'inquiry:timeout' ? 'device-timer' : 'human';
      return resolve({ inquiryId, status: ack.status, resolvedBy: { kind, deviceId, deviceName } });
    }
    if (ack.error.code === 'already_resolved' && ack.status) {
      return resolve({
        inquiryId,
        status: ack.status,
        ...(ack.resolvedBy ? { resolvedBy: ack.resolvedBy } : {}),
      });
    }
    if (ack.error.code === 'not_found') {
      state = applyResolved(state, { inquiryId }).state;
      publish({});
    }
  };

  const resolve = (event: { inquiryId: string; status: InquiryStatus; resolvedBy?: ResolvedBy }) => {
    const result = applyResolved(state, event);
    if (result.state === state) return;
    state = result.state;
    publish({});
    events.emit('resolved', {
      ...event,
      ...(result.removed ? { inquiry: result.removed } : {}),
      byThisDevice: event.resolvedBy?.deviceId === deviceId,
    });
  };

  /** Sends one device event and waits (bounded) for the server's ack; never throws. */
  async function send(
    event: Ending,
    inquiryId: string,
    emit: (s: ReturnType<DeviceSocket['timeout']>) => Promise<DeviceAck>,
  ): Promise<DeviceAck> {
    if (!socket.connected) return unavailable('not connected to the server; try again once reconnected');
    let ack: DeviceAck;
    try {
      ack = await emit(socket.timeout(ackTimeoutMs));
    } catch {
      return unavailable(`the server did not confirm within ${Math.round(ackTimeoutMs / 1000)} s`);
    }
    settleFromAck(inquiryId, event, ack);
    return ack;
  }

  const retryLater = () => {
    clock.clearTimeout(retryHandle);
    retryHandle = clock.setTimeout(
      () => {
        if (!closed) socket.connect();
      },
      backoffDelay(attempt++, backoff, Math.random),
    );
  };

  socket.on('connect', () => {
    attempt = 0;
    publish({ status: 'connected', synced: false });
  });
  socket.on('disconnect', (reason) => {
    if (closed) return;
    publish({ status: 'reconnecting', synced: false, error: `disconnected (${reason})` });
    // The server dropped us on purpose (e.g. a node shutting down): Socket.IO leaves that to us.
    if (reason === 'io server disconnect') retryLater();
  });
  socket.on('connect_error', (error) => {
    if (closed) return;
    if (socket.active) return publish({ status: 'reconnecting', error: error.message });
    // Refused by the server's handshake check: a bad token stays bad, anything else is retried.
    if (/^(unauthorized|forbidden)\b/.test(error.message)) {
      return publish({ status: 'rejected', error: error.message });
    }
    publish({ status: 'reconnecting', error: error.message });
    retryLater();
  });

  socket.on('inquiry:sync', (event) => {
    const result = applySync(state, event, clock.now());
    state = result.state;
    const announce = seenFirstSync;
    seenFirstSync = true;
    publish({ synced: true });
    if (announce) for (const inquiry of result.added) events.emit('new', inquiry);
  });
  socket.on('inquiry:new', (inquiry) => {
    const result = applyNew(state, inquiry, clock.now());
    if (!result.added) return;
    state = result.state;
    publish({});
    events.emit('new', result.added);
  });
  socket.on('inquiry:updated', (inquiry) => {
    const next = applyUpdated(state, inquiry, clock.now());
    if (next === state) return;
    state = next;
    publish({});
  });
  socket.on('inquiry:resolved', (event) => resolve(event));

  const client: DeviceClient = {
    deviceId,
    deviceName,
    getSnapshot: () => snapshot,
    subscribe(listener) {
      watchers.add(listener);
      return () => {
        watchers.delete(listener);
      };
    },
    on: (event, listener) => events.on(event, listener),
    answer: (inquiryId, response) =>
      send('inquiry:answer', inquiryId, (s) => s.emitWithAck('inquiry:answer', { inquiryId, response })),
    refuse: (inquiryId) =>
      send('inquiry:refuse', inquiryId, (s) => s.emitWithAck('inquiry:refuse', { inquiryId })),
    connect() {
      if (closed || socket.connected) return;
      publish({ status: 'connecting' });
      socket.connect();
    },
    close() {
      if (closed) return;
      closed = true;
      clock.clearTimeout(retryHandle);
      timer.stop();
      socket.disconnect();
      publish({ status: 'closed', synced: false });
      events.clear();
    },
  };
  if (options.autoConnect !== false) client.connect();
  return client;
}
