import type { Server as HttpServer } from 'node:http';
import type { TokenService } from '@hitl/auth';
import { type HostPolicy, hostOriginProblem } from '@hitl/auth';
import {
  audienceOf,
  type DeviceInquiry,
  DeviceNameSchema,
  type Inquiry,
  SOCKET_MAX_BUFFER_BYTES,
  SOCKET_PATH,
  toDeviceInquiry,
} from '@hitl/protocol';
import type { InquiryStore } from '@hitl/store';
import type { Logger } from 'pino';
import { Server } from 'socket.io';
import type { RevocationCache } from '../auth/revocation-cache.js';
import type { InquiryService } from '../core/inquiry-service.js';
import type { Clock, InquiryEvents } from '../core/ports.js';
import { createRateLimiter, type RateLimiter } from '../core/rate-limit.js';
import type { DeviceSightings } from '../devices/device-sightings.js';
import { type DeviceDeliveryRecorder, recordDeliveries } from './delivery-recorder.js';
import { handleDeviceEvents } from './device-events.js';
import { type DeviceServer, type DeviceSocket, OPS_ROOM, tokenRoom, userRoom } from './device-socket.js';
import { checkHandshake } from './handshake.js';
import { keepRelayed, RelayedInquiries } from './relayed-inquiries.js';
import { subscriptionsSettled } from './room-aware-adapter.js';
import { boundOutgoing, capSocketsPerToken, dropSocket, MAX_OUTGOING_BYTES } from './socket-limits.js';
import { syncDevice } from './sync.js';

export type { DeviceServer } from './device-socket.js';

/** An address may open this many times the handshakes of one token (several users behind a NAT). */
const ADDRESS_HANDSHAKE_FACTOR = 5;

export interface GatewayDeps {
  service: InquiryService;
  store: InquiryStore;
  tokens: TokenService;
  limiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  hostPolicy: HostPolicy;
  /** Socket limits: live sockets per token (`HITL_MAX_SOCKETS_PER_TOKEN`) and handshakes per minute. */
  limits: { maxSocketsPerToken: number; handshakesPerMin: number };
  /** Re-read when a token is revoked anywhere: this node's sockets of revoked tokens are dropped. */
  revocations?: Pick<RevocationCache, 'onReload'>;
  /** Device records: each device socket's token is recorded as seen. */
  sightings?: Pick<DeviceSightings, 'note'>;
  /** Where each inquiry handed to a device socket is recorded for ops (the inquiry's timeline). */
  deliveries?: DeviceDeliveryRecorder;
  /** Socket.IO adapter factory (sharded Redis pub/sub in distributed mode; in-memory otherwise). */
  adapter?: Parameters<Server['adapter']>[0];
}

/** Socket.IO on the node's HTTP server: device auth, a room per user, paged sync, acked answers. */
export function createDeviceGateway(
  httpServer: HttpServer,
  deps: GatewayDeps,
): { io: DeviceServer; events: InquiryEvents } {
  const io: DeviceServer = new Server(httpServer, {
    path: SOCKET_PATH,
    maxHttpBufferSize: SOCKET_MAX_BUFFER_BYTES,
    serveClient: false,
    // No connection-state recovery: it restores a session's rooms and replays its missed events
    // in the namespace before any middleware has checked the token (socket.io 4.8
    // `Namespace._createSocket`). Every connect re-syncs the pending list instead (docs/DEVICES.md).
    allowRequest: (req, callback) => {
      const problem = hostOriginProblem(deps.hostPolicy, req.headers.host, req.headers.origin);
      callback(problem, problem === null);
    },
    ...(deps.adapter ? { adapter: deps.adapter } : {}),
  });
  const { handshakesPerMin, maxSocketsPerToken } = deps.limits;
  io.use(
    checkHandshake({
      tokens: deps.tokens,
      clock: deps.clock,
      perToken: createRateLimiter(handshakesPerMin),
      perAddress: createRateLimiter(handshakesPerMin * ADDRESS_HANDSHAKE_FACTOR),
    }),
  );
  const drop = (socket: DeviceSocket, reason: string) => dropSocket(socket, reason, deps.logger);
  const relayed = new RelayedInquiries();

  deps.revocations?.onReload(() => {
    for (const socket of io.of('/').sockets.values()) {
      if (deps.tokens.isRevoked(socket.data.claims)) socket.disconnect(true);
    }
  });

  io.on('connection', (socket) => {
    boundOutgoing(socket, MAX_OUTGOING_BYTES, () => drop(socket, 'outgoing buffer over its bound'));
    if (socket.data.claims.role === 'ops') {
      // An ops console watches every user: no sync of its own, and no answering (no device events).
      void socket.join([OPS_ROOM, tokenRoom(socket.data.tokenKey)]);
      void capSocketsPerToken(io, socket, maxSocketsPerToken).catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'socket cap check failed'),
      );
      return;
    }
    if (deps.deliveries) recordDeliveries(socket, deps.deliveries, deps.clock);
    keepRelayed(socket, relayed);
    const joined = socket.join([userRoom(socket.data.userId), tokenRoom(socket.data.tokenKey)]);
    const named = DeviceNameSchema.safeParse(socket.handshake.auth?.deviceName);
    deps.sightings?.note(socket.data.claims, named.success ? named.data : undefined);
    void capSocketsPerToken(io, socket, maxSocketsPerToken).catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'socket cap check failed'),
    );
    // The sync reads only once the user's room is subscribed: an event published before that is in
    // what it reads, one published after reaches the socket.
    void Promise.resolve(joined)
      .then(() => subscriptionsSettled(io.of('/').adapter))
      .then(() => syncDevice(socket, { ...deps, drop }));
    handleDeviceEvents(socket, { ...deps, relayed });
  });

  /**
   * One emit per room: with the sharded adapter a single-room emit goes to that room's channel
   * (only the nodes with a socket in it hear it), a multi-room one to every node. No socket is in
   * two of these rooms (a device joins its user's room, an ops console only the ops room), so each
   * still gets it once.
   */
  const toRooms = (rooms: string[], event: 'inquiry:new' | 'inquiry:updated', view: DeviceInquiry) => {
    for (const room of rooms) io.to(room).emit(event, view);
  };
  /** Every audience member's devices and every ops console. */
  const watchers = (inquiry: Inquiry) => [...audienceRooms(inquiry), OPS_ROOM];
  const events: InquiryEvents = {
    created: (inquiry: Inquiry) =>
      toRooms(watchers(inquiry), 'inquiry:new', toDeviceInquiry(inquiry, deps.clock.now())),
    updated: (inquiry: Inquiry) => {
      if (inquiry.status !== 'pending') return;
      toRooms(watchers(inquiry), 'inquiry:updated', toDeviceInquiry(inquiry, deps.clock.now()));
    },
    escalated: (inquiry: Inquiry) => {
      const added = new Set(inquiry.escalation?.users ?? []);
      // An empty room list would mean every socket: never emit to none.
      if (added.size === 0) return;
      const view = toDeviceInquiry(inquiry, deps.clock.now());
      // The people added get it as new; everyone already asked (and ops) see it changed.
      toRooms([...added].map(userRoom), 'inquiry:new', view);
      const before = audienceOf(inquiry).filter((userId) => !added.has(userId));
      toRooms([...before.map(userRoom), OPS_ROOM], 'inquiry:updated', view);
    },
    resolved: (inquiry: Inquiry) => {
      if (inquiry.status === 'pending' || !inquiry.resolvedBy) return;
      const event = { inquiryId: inquiry.inquiryId, status: inquiry.status, resolvedBy: inquiry.resolvedBy };
      for (const room of watchers(inquiry)) io.to(room).emit('inquiry:resolved', event);
    },
  };
  return { io, events };
}

/** The rooms of every user an inquiry is addressed to (one emit: a socket in several gets it once). */
function audienceRooms(inquiry: Inquiry): string[] {
  return audienceOf(inquiry).map(userRoom);
}
