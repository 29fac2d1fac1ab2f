import type {
  AnswerExtras,
  DeviceAck,
  ErrorCode,
  InquiryResponse,
  InquiryStatus,
  ResolvedBy,
} from '@hitl/protocol';
import type { BackoffOptions } from './backoff.js';
import type { Clock } from './clock.js';
import type { PendingInquiry } from './pending.js';

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
  /** The code the server refused the handshake with (`unauthorized`, `forbidden`, ...). */
  errorCode?: ErrorCode;
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
  /**
   * Answers an inquiry: text, or an object keyed by question id for a form; `extras` adds a reason,
   * and to an approval's "approve" edited arguments or a standing approval (`allowFor`).
   */
  answer(inquiryId: string, response: InquiryResponse, extras?: AnswerExtras): Promise<DeviceAck>;
  /** "I'd rather not say", with the person's reason when they gave one. */
  refuse(inquiryId: string, reason?: string): Promise<DeviceAck>;
  connect(): void;
  /** Disconnects for good and stops every timer. */
  close(): void;
}
