import type { AuthVariables } from '@hitl/mcp-http';
import type { MiddlewareHandler } from 'hono';
import type { DeviceSightings } from '../devices/device-sightings.js';

/**
 * Notes every admitted use of a device token under `/api` on the token's device record (REST as well
 * as sockets), so a token used only over REST is on its user's device list too. It runs around the
 * route: the route's own `requireRole` sets the claims, and a refused token sets none. The note does
 * not hold the answer, and is throttled per token and node (`DeviceSightings`).
 */
export function noteDeviceUse(
  sightings: Pick<DeviceSightings, 'note'>,
): MiddlewareHandler<{ Variables: AuthVariables }> {
  return async (c, next) => {
    await next();
    const claims = c.get('claims') as AuthVariables['claims'] | undefined;
    if (claims) sightings.note(claims);
  };
}
