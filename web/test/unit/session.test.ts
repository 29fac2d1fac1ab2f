import { describe, expect, it } from 'vitest';
import {
  adoptUrlParams,
  decodeClaims,
  deviceIdentity,
  guessDeviceName,
  loadSession,
} from '../../src/session';

class MemoryStorage implements Storage {
  private map = new Map<string, string>();
  get length() {
    return this.map.size;
  }
  clear() {
    this.map.clear();
  }
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  key(index: number) {
    return [...this.map.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.map.delete(key);
  }
  setItem(key: string, value: string) {
    this.map.set(key, value);
  }
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: object) => `${b64url({ alg: 'HS256' })}.${b64url(claims)}.signature`;

describe('session', () => {
  it('reads the role and user from the token payload (display only)', () => {
    expect(decodeClaims(jwt({ sub: 'ana', role: 'device', name: 'Ana’s phone ✓' }))).toEqual({
      sub: 'ana',
      role: 'device',
      name: 'Ana’s phone ✓',
    });
    expect(decodeClaims(jwt({ sub: 'ana', role: 'root' }))).toBeNull();
    expect(decodeClaims('garbage')).toBeNull();
  });

  it('moves ?token= and ?device= into storage and out of the address bar', () => {
    const storage = new MemoryStorage();
    const replaced: string[] = [];
    const history = {
      state: null,
      replaceState: (_s: unknown, _t: string, url: string) => replaced.push(url),
    };
    const token = jwt({ sub: 'ana', role: 'device' });
    const location = { href: `http://127.0.0.1:8787/?token=${token}&device=Phone&x=1#top` };
    adoptUrlParams(location as Location, history as unknown as History, storage);
    expect(replaced).toEqual(['/?x=1#top']);
    expect(loadSession(storage)?.token).toBe(token);
    expect(deviceIdentity(storage, '').deviceName).toBe('Phone');
    // No token in the URL: nothing is rewritten.
    adoptUrlParams({ href: 'http://127.0.0.1:8787/' } as Location, history as unknown as History, storage);
    expect(replaced).toHaveLength(1);
  });

  it('keeps one device id per browser and guesses a readable name', () => {
    const storage = new MemoryStorage();
    const first = deviceIdentity(
      storage,
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36',
    );
    expect(first.deviceName).toBe('Chrome on Linux');
    expect(deviceIdentity(storage, '').deviceId).toBe(first.deviceId);
    expect(guessDeviceName('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1')).toBe(
      'iPhone',
    );
    expect(
      guessDeviceName('Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/126.0 Mobile Safari/537.36'),
    ).toBe('Android phone');
  });
});
