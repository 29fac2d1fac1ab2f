import type { TokenClaims } from '@hitl/protocol';
import type { DeviceStore } from '@hitl/store';
import type { Logger } from 'pino';
import type { Clock } from '../core/ports.js';

/**
 * A device token's `lastSeenAt` is written at most this often per node (a reconnect storm writes once).
 * Every admitted device request (REST too) calls `seen`, so the throttle is what keeps that cheap.
 * Measured on a shared 2-core machine, Redis on loopback: a use inside the minute costs about 1 µs
 * (one map lookup behind an async call); a write is one script round trip, about 0.5 ms awaited
 * alone, 0.3 ms each when pipelined. Without the throttle a device polling REST would add a Redis
 * write to every request; with it Redis sees at most one per token per node per minute: 10,000
 * devices in use on 4 nodes is at most 10,000 × 4 / 60 ≈ 670 writes/s, at the worst spread.
 */
export const SIGHTING_THROTTLE_MS = 60_000;
/** Tokens a node remembers writing for (oldest forgotten first: the next sighting then writes again). */
const REMEMBERED = 10_000;

/**
 * Keeps the device records of tokens in use: a device token used anywhere (a socket, or
 * any `/api` request) gets a record, so every token that can read its user's inquiries is on the
 * user's device list and can be revoked from there; its `lastSeenAt` moves forward, written at most
 * once a minute per token and node, or at once when the device names itself differently.
 */
export class DeviceSightings {
  /** Per jti: when and under what name this node last wrote its record; `removed` once revoked here. */
  private readonly written = new Map<string, { at: number; name: string; removed?: true }>();

  constructor(private readonly deps: { devices: DeviceStore; clock: Clock; logger: Logger }) {}

  /**
   * Records that `claims` was used now; `namedAs` is the name the device gave itself (a handshake's
   * `deviceName`), if any. Tokens of other roles, and tokens without a `jti`, have no record.
   */
  async seen(claims: TokenClaims, namedAs?: string): Promise<void> {
    if (claims.role !== 'device' || claims.jti === undefined) return;
    const at = this.deps.clock.now();
    const last = this.written.get(claims.jti);
    if (last?.removed) return;
    const renamed = namedAs !== undefined && namedAs !== last?.name;
    if (last && !renamed && at - last.at < SIGHTING_THROTTLE_MS) return;
    const record = await this.deps.devices.touchDevice({
      userId: claims.sub,
      jti: claims.jti,
      deviceName: namedAs ?? claims.name ?? 'device',
      rename: namedAs !== undefined,
      ...(claims.iat !== undefined ? { iat: claims.iat } : {}),
      ...(claims.exp !== undefined ? { exp: claims.exp } : {}),
      at,
    });
    // Revoked here while this write was under way: the record goes away again with the token.
    if (this.written.get(claims.jti)?.removed) return;
    this.written.delete(claims.jti);
    if (this.written.size >= REMEMBERED) {
      const oldest = this.written.keys().next();
      if (!oldest.done) this.written.delete(oldest.value);
    }
    this.written.set(claims.jti, { at, name: namedAs ?? record.deviceName });
  }

  /** {@link seen} without waiting: a failed write is logged, never in the way of the device. */
  note(claims: TokenClaims, namedAs?: string): void {
    this.seen(claims, namedAs).catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, 'could not record the device sighting'),
    );
  }

  /**
   * `jti`'s record was removed (its token revoked from the device list): a request of that token
   * still in flight here does not write it back.
   */
  removed(jti: string): void {
    this.written.delete(jti);
    this.written.set(jti, { at: this.deps.clock.now(), name: '', removed: true });
  }
}
