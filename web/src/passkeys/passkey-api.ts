import {
  type DeviceAck,
  ErrorBodySchema,
  type Passkey,
  PasskeySchema,
  type WebAuthnAssertion,
  WebAuthnAssertionSchema,
} from '@hitl/protocol';
import {
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import { nodeOrigin } from '../platform/node-url';

const origin = () => nodeOrigin(localStorage, window.location) ?? window.location.origin;

/** One JSON request with the device token; a refusal throws with the server's own message. */
async function call(token: string, path: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(`${origin()}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers },
  });
  if (response.status === 204) return undefined;
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = ErrorBodySchema.safeParse(body);
    throw new Error(error.success ? error.data.error.message : `the server answered ${response.status}`);
  }
  return body;
}

export async function listPasskeys(token: string): Promise<Passkey[]> {
  const body = (await call(token, '/api/passkeys')) as { items?: unknown } | undefined;
  return PasskeySchema.array().parse(body?.items);
}

export async function deletePasskey(token: string, id: string): Promise<void> {
  await call(token, `/api/passkeys/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** Registers a passkey on this device: the node's options, the browser's ceremony, the node's check. */
export async function addPasskey(token: string, deviceName: string): Promise<string> {
  const optionsJSON = (await call(token, '/api/passkeys/options', {
    method: 'POST',
  })) as PublicKeyCredentialCreationOptionsJSON;
  const registration = await startRegistration({ optionsJSON });
  const created = (await call(token, '/api/passkeys', {
    method: 'POST',
    body: JSON.stringify(registration),
    headers: { 'X-Device-Name': deviceName },
  })) as { id: string };
  return created.id;
}

/**
 * Approves a passkey approval: options bound to this inquiry and its arguments, the browser asks for
 * the passkey (user verification), then the answer goes with the assertion. A failure reads like a
 * refused send, so the card says why.
 */
export async function approveWithPasskey(
  token: string,
  inquiryId: string,
  answer: (webauthn: WebAuthnAssertion) => Promise<DeviceAck>,
  approvedArguments?: Record<string, unknown>,
): Promise<DeviceAck> {
  try {
    const optionsJSON = (await call(
      token,
      `/api/inquiries/${encodeURIComponent(inquiryId)}/passkey-options`,
      {
        method: 'POST',
        body: JSON.stringify(approvedArguments ? { arguments: approvedArguments } : {}),
      },
    )) as PublicKeyCredentialRequestOptionsJSON;
    // The browser's JSON is the wire shape; checked here as the node will check it.
    return await answer(WebAuthnAssertionSchema.parse(await startAuthentication({ optionsJSON })));
  } catch (error) {
    return {
      ok: false,
      error: { code: 'passkey_required', message: error instanceof Error ? error.message : String(error) },
    };
  }
}
