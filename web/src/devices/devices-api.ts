import {
  type Device,
  DeviceListSchema,
  DeviceRevokedSchema,
  ErrorBodySchema,
  type Pairing,
  type PairingClaimResult,
  PairingClaimResultSchema,
  PairingSchema,
  type StandingApprovalView,
  StandingEndedSchema,
  StandingListSchema,
} from '@hitl/protocol';
import { nodeOrigin } from '../platform/node-url';

/** A REST failure as the person should read it, with the server's code when it sent one. */
export class DevicesApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

const origin = () => nodeOrigin(localStorage, window.location) ?? window.location.origin;

/** What `send` checks an answer with (a zod schema). */
interface Checker<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

/** One request, its answer checked with `schema` at this boundary. */
async function send<T>(
  path: string,
  init: RequestInit,
  schema: Checker<T>,
  base: string = origin(),
): Promise<T> {
  const response = await fetch(`${base}${path}`, init);
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = ErrorBodySchema.safeParse(body);
    throw new DevicesApiError(
      error.success ? error.data.error.message : `the server answered ${response.status}`,
      response.status,
      error.success ? error.data.error.code : undefined,
    );
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new DevicesApiError('the server sent something unexpected', response.status);
  return parsed.data;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** `POST /api/pairings`: a one-time code for a new device of this user. */
export const createPairing = (token: string): Promise<Pairing> =>
  send('/api/pairings', { method: 'POST', headers: bearer(token) }, PairingSchema);

/** `POST /api/pairings/claim` at `base` (the node the pairing URL names, or this page's). */
export const claimPairing = (code: string, deviceName: string, base?: string): Promise<PairingClaimResult> =>
  send(
    '/api/pairings/claim',
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code, deviceName }),
    },
    PairingClaimResultSchema,
    base,
  );

/** `GET /api/devices`: this user's devices. */
export const listDevices = async (token: string): Promise<Device[]> =>
  (await send('/api/devices', { headers: bearer(token) }, DeviceListSchema)).items;

/** `DELETE /api/devices/:jti`: signs that device out everywhere. */
export const revokeDevice = async (token: string, jti: string): Promise<void> => {
  await send(
    `/api/devices/${encodeURIComponent(jti)}`,
    { method: 'DELETE', headers: bearer(token) },
    DeviceRevokedSchema,
  );
};

/** `GET /api/approvals/standing`: the standing approvals covering this user or made by them. */
export const listStanding = async (token: string): Promise<StandingApprovalView[]> =>
  (await send('/api/approvals/standing', { headers: bearer(token) }, StandingListSchema)).items;

/** `DELETE /api/approvals/standing/:id`: ends it at once, on every node. */
export const endStanding = async (token: string, id: string): Promise<StandingApprovalView> =>
  (
    await send(
      `/api/approvals/standing/${encodeURIComponent(id)}`,
      { method: 'DELETE', headers: bearer(token) },
      StandingEndedSchema,
    )
  ).ended;
