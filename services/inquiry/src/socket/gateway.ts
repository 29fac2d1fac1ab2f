import type { Server as HttpServer } from 'node:http';
import {
  type DeviceAck,
  DeviceAnswerSchema,
  DeviceHandshakeSchema,
  DeviceInquiryRefSchema,
  type DeviceToServerEvents,
  describeZodError,
  HitlError,
  type Inquiry,
  type ServerToDeviceEvents,
  SOCKET_MAX_BUFFER_BYTES,
  SOCKET_PATH,
  socketRefusal,
  type TokenClaims,
  toDeviceInquiry,
} from '@hitl/protocol';
import type { InquiryStore } from '@hitl/store';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';
import type { z } from 'zod';
import type { RevocationCache } from '../auth/revocation-cache.js';
import { authorize, type TokenService } from '../auth/tokens.js';
import type { InquiryService } from '../core/inquiry-service.js';
import type { DeviceRef, Ending } from '../core/outcomes.js';
import type { Clock, InquiryEvents } from '../core/ports.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { isStoreOutage, storeUnavailable } from '../core/store-outage.js';
import { tokenFingerprint } from '../http/auth.js';
import { type HostPolicy, hostOriginProblem } from '../http/host-guard.js';

interface DeviceData {
  userId: string;
  /** The handshake token's claims: a revocation after the handshake is checked against them. */
  claims: TokenClaims;
  device: DeviceRef;
  tokenKey: string;
}

type DeviceSocket = Socket<DeviceToServerEvents, ServerToDeviceEvents, Record<string, never>, DeviceData>;
export type DeviceServer = Server<
  DeviceToServerEvents,
  ServerToDeviceEvents,
  Record<string, never>,
  DeviceData
>;

export interface GatewayDeps {
  service: InquiryService;
  store: InquiryStore;
  tokens: TokenService;
  limiter: RateLimiter;
  clock: Clock;
  logger: Logger;
  hostPolicy: HostPolicy;
  /** Re-read when a token is revoked anywhere: this node's sockets of revoked tokens are dropped. */
  revocations?: Pick<RevocationCache, 'onReload'>;
  /** Socket.IO adapter factory (Redis streams in distributed mode; in-memory otherwise). */
  adapter?: Parameters<Server['adapter']>[0];
}

const room = (userId: string) => `user:${userId}`;
const SYNC_PAGE = 200;

/** Socket.IO on the node's HTTP server: device auth, a room per user, sync, answers with acks. */
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

  io.use(async (socket, next) => {
    const handshake = DeviceHandshakeSchema.safeParse(socket.handshake.auth);
    if (!handshake.success) {
      return next(socketRefusal('unauthorized', describeZodError(handshake.error)));
    }
    const result = await authorize(deps.tokens, handshake.data.token, ['device']);
    if (!result.ok) return next(socketRefusal(result.code, result.message));
    socket.data = {
      userId: result.claims.sub,
      claims: result.claims,
      tokenKey: tokenFingerprint(handshake.data.token),
      device: {
        deviceId: handshake.data.deviceId ?? socket.id,
        deviceName: handshake.data.deviceName ?? result.claims.name ?? 'device',
      },
    };
    return next();
  });

  deps.revocations?.onReload(() => {
    for (const socket of io.of('/').sockets.values()) {
      if (deps.tokens.isRevoked(socket.data.claims)) socket.disconnect(true);
    }
  });

  io.on('connection', (socket) => {
    void socket.join(room(socket.data.userId));
    void sync(socket, deps);
    socket.on('inquiry:answer', (payload, ack) =>
      handle(deps, socket, ack, DeviceAnswerSchema, payload, (p) => ({
        type: 'answer',
        response: p.response,
        device: socket.data.device,
      })),
    );
    socket.on('inquiry:refuse', (payload, ack) =>
      handle(deps, socket, ack, DeviceInquiryRefSchema, payload, () => ({
        type: 'refusal',
        device: socket.data.device,
      })),
    );
    socket.on('inquiry:timeout', (payload, ack) =>
      handle(deps, socket, ack, DeviceInquiryRefSchema, payload, () => ({
        type: 'device-timer',
        device: socket.data.device,
      })),
    );
  });

  const events: InquiryEvents = {
    created: (inquiry: Inquiry) =>
      io.to(room(inquiry.userId)).emit('inquiry:new', toDeviceInquiry(inquiry, deps.clock.now())),
    updated: (inquiry: Inquiry) => {
      if (inquiry.status !== 'pending') return;
      io.to(room(inquiry.userId)).emit('inquiry:updated', toDeviceInquiry(inquiry, deps.clock.now()));
    },
    resolved: (inquiry: Inquiry) => {
      if (inquiry.status === 'pending' || !inquiry.resolvedBy) return;
      io.to(room(inquiry.userId)).emit('inquiry:resolved', {
        inquiryId: inquiry.inquiryId,
        status: inquiry.status,
        resolvedBy: inquiry.resolvedBy,
      });
    },
  };
  return { io, events };
}

/** Every (re)connect gets the full list of the user's pending inquiries. */
async function sync(socket: DeviceSocket, deps: GatewayDeps): Promise<void> {
  try {
    const inquiries: Inquiry[] = [];
    let cursor: string | undefined;
    do {
      const page = await deps.store.list({
        userId: socket.data.userId,
        status: 'pending',
        limit: SYNC_PAGE,
        cursor,
      });
      inquiries.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const now = deps.clock.now();
    socket.emit('inquiry:sync', {
      inquiries: inquiries.map((i) => toDeviceInquiry(i, now)),
      serverTime: now,
    });
  } catch (error) {
    deps.logger.warn({ err: error, userId: socket.data.userId }, 'device sync failed');
  }
}

async function handle<S extends z.ZodType>(
  deps: GatewayDeps,
  socket: DeviceSocket,
  ack: unknown,
  schema: S,
  payload: unknown,
  toEnding: (parsed: z.infer<S>) => Ending,
): Promise<void> {
  const reply = typeof ack === 'function' ? (ack as (r: DeviceAck) => void) : () => undefined;
  const fail = (code: HitlError['code'], message: string) => reply({ ok: false, error: { code, message } });
  const parsed = schema.safeParse(payload);
  if (!parsed.success) return fail('invalid_input', describeZodError(parsed.error));
  const { inquiryId } = parsed.data as { inquiryId: string };
  // The read the resolve needs goes out with the rate-limit check (one round trip, not two); it
  // changes nothing, so an answer over the limit still has no effect.
  const found = deps.service.find(inquiryId, socket.data.userId);
  found.catch(() => undefined);
  const rate = await deps.limiter.consume(socket.data.tokenKey);
  if (!rate.ok)
    return fail('rate_limited', `rate limit reached; retry in ${Math.ceil(rate.retryAfterMs / 1000)} s`);
  try {
    const result = await deps.service.settle(inquiryId, socket.data.userId, toEnding(parsed.data), found);
    if (result.kind === 'won') return reply({ ok: true, status: result.inquiry.status });
    if (result.kind === 'not_found') return fail('not_found', `no inquiry ${inquiryId}`);
    const { status, resolvedBy } = result.inquiry;
    return reply({
      ok: false,
      error: { code: 'already_resolved', message: `this inquiry is already ${status}` },
      status,
      ...(resolvedBy ? { resolvedBy } : {}),
    });
  } catch (error) {
    if (error instanceof HitlError) return fail(error.code, error.message);
    if (isStoreOutage(error)) return fail('unavailable', storeUnavailable().message);
    deps.logger.error({ err: error, inquiryId }, 'device event failed');
    return fail('internal', 'internal error');
  }
}
