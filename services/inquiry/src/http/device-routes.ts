import { randomBytes } from 'node:crypto';
import type { TokenService } from '@hitl/auth';
import { type AuthVariables, errorResponse, rateLimit, rateLimited, requireRole } from '@hitl/mcp-http';
import {
  type Device,
  describeZodError,
  HitlError,
  isPairingCode,
  normalizePairingCode,
  PairingClaimBodySchema,
  type TokenClaims,
} from '@hitl/protocol';
import type { DeviceStore, RevocationStore } from '@hitl/store';
import { getConnInfo } from '@hono/node-server/conninfo';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { addressBudgetKey } from '../core/address-key.js';
import type { Clock } from '../core/ports.js';
import type { RateLimiter } from '../core/rate-limit.js';
import type { DeviceSightings } from '../devices/device-sightings.js';
import { hashPairingCode, newPairingCode } from '../devices/pairing-code.js';
import { makerRevoked, pairingMaker } from '../devices/pairing-maker.js';

/** A paired device's token lives as long as a `hitl token create` one by default. */
const PAIRED_TOKEN_LIFETIME = '90d';
const INVALID_PAIRING = 'this pairing code is not valid: it is wrong, was used, or expired';
const JtiSchema = z.string().min(1).max(100);

export interface DeviceRouteDeps {
  tokens: TokenService;
  limiter: RateLimiter;
  clock: Clock;
  revocations: RevocationStore;
  pairing: {
    devices: DeviceStore;
    sightings: DeviceSightings;
    /** Wrong codes per address (`PAIRING_LIMITS.wrongCodesPerMin`; in Redis when the node has one). */
    wrongCodes: RateLimiter;
    ttlMs: number;
    /** `HITL_PUBLIC_URL`, if set: where pairing URLs point (else the origin the request came to). */
    publicUrl?: string;
  };
}

/**
 * Pairing: `POST /api/pairings` (device) makes a one-time code; `POST /api/pairings/claim` (no
 * token) trades it for a new device token of the same user; `GET /api/devices` and
 * `DELETE /api/devices/:jti` list and revoke the user's own devices.
 */
export function deviceRoutes(deps: DeviceRouteDeps): Hono<{ Variables: AuthVariables }> {
  const app = new Hono<{ Variables: AuthVariables }>();
  const devicesOnly = requireRole(deps.tokens, ['device']);
  const limited = rateLimit(deps.limiter);
  const { devices, sightings, wrongCodes, ttlMs } = deps.pairing;

  app.post('/pairings', devicesOnly, limited, async (c) => {
    const claims = c.get('claims');
    const code = newPairingCode();
    const createdAt = deps.clock.now();
    const pairing = {
      pairingId: randomBytes(16).toString('base64url'),
      userId: claims.sub,
      codeHash: hashPairingCode(code),
      createdAt,
      // A pairing never outlives the token that made it: not past its expiry, not past its revocation.
      expiresAt: Math.min(createdAt + ttlMs, claims.exp === undefined ? Infinity : claims.exp * 1000),
      ...pairingMaker(claims),
    };
    await devices.createPairing(pairing);
    const base = (deps.pairing.publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
    return c.json(
      { pairingId: pairing.pairingId, code, url: `${base}/pair#${code}`, expiresAt: pairing.expiresAt },
      201,
    );
  });

  /** Takes the pairing of `code` if it lives and its maker is still valid (else it is void: taken, `undefined`). */
  const claimLive = async (code: string, now: number) => {
    const pairing = await devices.claimPairing(hashPairingCode(code), now);
    return pairing && !(await makerRevoked(deps.revocations, pairing)) ? pairing : undefined;
  };

  app.post('/pairings/claim', async (c) => {
    const body: unknown = await c.req.json().catch(() => undefined);
    const parsed = PairingClaimBodySchema.safeParse(body);
    if (!parsed.success) {
      const problem = body === undefined ? 'body must be JSON' : describeZodError(parsed.error);
      return errorResponse(c, 'invalid_input', `${problem}: expected {"code": ..., "deviceName": ...}`);
    }
    const address = `pair:${addressBudgetKey(clientAddress(c))}`;
    // The point is spent before the code is looked at, in one step (one script in Redis), so of many
    // claims at once no more than the budget are looked up; a right code gets its point back.
    const spent = await wrongCodes.consume(address);
    if (!spent.ok) throw rateLimited(spent.retryAfterMs);
    const code = normalizePairingCode(parsed.data.code);
    const now = deps.clock.now();
    const pairing = isPairingCode(code) ? await claimLive(code, now) : undefined;
    if (!pairing) throw new HitlError('invalid_pairing', INVALID_PAIRING);
    await wrongCodes.refund(address);
    const { deviceName } = parsed.data;
    const token = await deps.tokens.sign(
      { sub: pairing.userId, role: 'device', name: deviceName },
      { expiresIn: PAIRED_TOKEN_LIFETIME },
    );
    const claims = (await deps.tokens.verify(token)) as TokenClaims;
    await sightings.seen(claims, deviceName);
    return c.json({ token, user: pairing.userId, deviceName });
  });

  app.get('/devices', devicesOnly, async (c) => {
    const claims = c.get('claims');
    // The asking token is listed even if it never opened a socket.
    await sightings.seen(claims);
    const now = deps.clock.now();
    const items: Device[] = (await devices.listDevices(claims.sub))
      .filter(
        (record) =>
          (record.exp === undefined || record.exp * 1000 > now) &&
          !deps.tokens.isRevoked({ sub: record.userId, role: 'device', jti: record.jti, iat: record.iat }),
      )
      .map(({ jti, deviceName, createdAt, lastSeenAt }) => ({
        jti,
        deviceName,
        createdAt,
        lastSeenAt,
        current: jti === claims.jti,
      }));
    return c.json({ items });
  });

  app.delete('/devices/:jti', devicesOnly, limited, async (c) => {
    const jti = JtiSchema.safeParse(c.req.param('jti'));
    if (!jti.success) return errorResponse(c, 'invalid_input', `jti: ${describeZodError(jti.error)}`);
    const userId = c.get('claims').sub;
    const record = (await devices.listDevices(userId)).find((device) => device.jti === jti.data);
    // Another user's device is not found, like another user's inquiry.
    if (!record) return errorResponse(c, 'not_found', 'no such device');
    // The revocation path of `hitl token revoke --jti`: every node refuses the token
    // within a second and drops its sockets.
    await deps.revocations.revokeToken(record.jti, record.exp);
    await devices.removeDevice(userId, record.jti);
    sightings.removed(record.jti);
    return c.json({ revoked: { jti: record.jti } });
  });

  return app;
}

/**
 * The peer's address (the node sits on the network edge; behind a proxy every claim shares one);
 * the budget is its host's ({@link addressBudgetKey}: IPv6 by its /64).
 */
function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
