import { type TokenClaims, TokenClaimsSchema } from '@hitl/protocol';

const TOKEN_KEY = 'hitl.token';
const DEVICE_ID_KEY = 'hitl.deviceId';
const DEVICE_NAME_KEY = 'hitl.deviceName';

/** The token this page acts with, and what it claims (decoded for display only; the server verifies). */
export interface Session {
  token: string;
  claims: TokenClaims | null;
}

/**
 * The JWT payload, unverified: the page only uses it to pick the device terminal or the ops console and
 * to show who is signed in. Every request is still checked by the server.
 */
export function decodeClaims(token: string): TokenClaims | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Uint8Array.from(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')), (ch) =>
      ch.charCodeAt(0),
    );
    const parsed = TokenClaimsSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Takes `?token=` (and `?device=`, a device name) from the address bar into storage and removes them
 * from the URL, so the token does not linger in history, bookmarks or screenshots.
 */
export function adoptUrlParams(location: Location, history: History, storage: Storage): void {
  const url = new URL(location.href);
  const token = url.searchParams.get('token');
  const device = url.searchParams.get('device');
  if (token === null && device === null) return;
  if (token) storage.setItem(TOKEN_KEY, token.trim());
  if (device) storage.setItem(DEVICE_NAME_KEY, device.trim().slice(0, 100));
  url.searchParams.delete('token');
  url.searchParams.delete('device');
  history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
}

export function loadSession(storage: Storage): Session | null {
  const token = storage.getItem(TOKEN_KEY);
  return token ? { token, claims: decodeClaims(token) } : null;
}

export function saveToken(storage: Storage, token: string): Session {
  storage.setItem(TOKEN_KEY, token.trim());
  return { token: token.trim(), claims: decodeClaims(token.trim()) };
}

export function signOut(storage: Storage): void {
  storage.removeItem(TOKEN_KEY);
}

/** This browser's stable device id and its display name (editable). */
export function deviceIdentity(
  storage: Storage,
  userAgent: string,
): { deviceId: string; deviceName: string } {
  let deviceId = storage.getItem(DEVICE_ID_KEY);
  if (!deviceId) {
    deviceId = crypto.randomUUID();
    storage.setItem(DEVICE_ID_KEY, deviceId);
  }
  return { deviceId, deviceName: storage.getItem(DEVICE_NAME_KEY) ?? guessDeviceName(userAgent) };
}

export function saveDeviceName(storage: Storage, name: string): void {
  storage.setItem(DEVICE_NAME_KEY, name.trim().slice(0, 100));
}

/** "Phone", "Chrome on Linux" and the like, from the user agent. */
export function guessDeviceName(userAgent: string): string {
  if (/iPhone/.test(userAgent)) return 'iPhone';
  if (/iPad/.test(userAgent)) return 'iPad';
  if (/Android.*Mobile/.test(userAgent)) return 'Android phone';
  if (/Android/.test(userAgent)) return 'Android tablet';
  const browser = /Edg\//.test(userAgent)
    ? 'Edge'
    : /Firefox\//.test(userAgent)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(userAgent)
        ? 'Chrome'
        : /Safari\//.test(userAgent)
          ? 'Safari'
          : 'Browser';
  const os = /Windows/.test(userAgent)
    ? 'Windows'
    : /Mac OS X/.test(userAgent)
      ? 'macOS'
      : /Linux/.test(userAgent)
        ? 'Linux'
        : '';
  return os ? `${browser} on ${os}` : browser;
}
