import { authorize, type TokenService, tokenFingerprint } from '@hitl/auth';
import { DeviceHandshakeSchema, describeZodError, retryAfterSeconds, socketRefusal } from '@hitl/protocol';
import type { Clock } from '../core/ports.js';
import type { RateLimiter } from '../core/rate-limit.js';
import type { DeviceSocket } from './device-socket.js';

export interface HandshakeDeps {
  tokens: TokenService;
  clock: Clock;
  /** Handshakes per token (`HITL_HANDSHAKES_PER_MIN`). */
  perToken: RateLimiter;
  /** Handshakes per remote address, forged tokens included. */
  perAddress: RateLimiter;
}

const overLimit = (retryAfterMs: number) =>
  socketRefusal(
    'rate_limited',
    `too many connection attempts; retry in ${retryAfterSeconds(retryAfterMs)} s`,
    retryAfterMs,
  );

/**
 * The Socket.IO middleware every connection passes before anything reaches it: a handshake budget
 * per address, a device (or ops) token, a budget per token. A refusal carries `{code}` in the error's
 * `data` (`socketRefusal`).
 */
export function checkHandshake(deps: HandshakeDeps) {
  return async (socket: DeviceSocket, next: (error?: Error) => void): Promise<void> => {
    const byAddress = await deps.perAddress.consume(`address:${socket.handshake.address}`);
    if (!byAddress.ok) return next(overLimit(byAddress.retryAfterMs));
    const handshake = DeviceHandshakeSchema.safeParse(socket.handshake.auth);
    if (!handshake.success) {
      return next(socketRefusal('unauthorized', describeZodError(handshake.error)));
    }
    // Ops sockets are admitted to watch (the gateway puts them in the ops room), never to answer.
    const result = await authorize(deps.tokens, handshake.data.token, ['device', 'ops']);
    if (!result.ok) return next(socketRefusal(result.code, result.message));
    const tokenKey = tokenFingerprint(handshake.data.token);
    const byToken = await deps.perToken.consume(`handshake:${tokenKey}`);
    if (!byToken.ok) return next(overLimit(byToken.retryAfterMs));
    socket.data = {
      userId: result.claims.sub,
      claims: result.claims,
      tokenKey,
      connectedAt: deps.clock.now(),
      device: {
        deviceId: handshake.data.deviceId ?? socket.id,
        deviceName: handshake.data.deviceName ?? result.claims.name ?? 'device',
      },
    };
    return next();
  };
}
