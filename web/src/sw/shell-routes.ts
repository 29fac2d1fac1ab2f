/**
 * Which requests the service worker's offline shell serves, and how (pure: unit-tested without a
 * worker). Live traffic is never touched.
 */

/** Files of the shell fetched at install; the page itself is cached under "/" whatever its query. */
export const SHELL = ['/', '/manifest.webmanifest', '/icons/icon-192.png', '/icons/icon-512.png'];

/** Never answered by this worker: live traffic. */
const LIVE = [/^\/api(\/|$)/, /^\/mcp(\/|$)/, /^\/socket\.io(\/|$)/, /^\/(healthz|readyz|metrics)$/];

export type Strategy = 'network' | 'page' | 'shell' | 'asset';

/**
 * How a request is served: "network" (not handled here), "page" (network first, the cached shell when
 * offline), "shell" (network first, cached copy when offline) or "asset" (hashed, so cache first).
 */
export function strategyFor(
  request: { url: string; method: string; mode?: string },
  origin: string,
): Strategy {
  if (request.method !== 'GET') return 'network';
  const url = new URL(request.url);
  if (url.origin !== origin) return 'network';
  if (LIVE.some((pattern) => pattern.test(url.pathname))) return 'network';
  if (request.mode === 'navigate') return url.pathname === '/' ? 'page' : 'network';
  if (url.pathname.startsWith('/assets/')) return 'asset';
  if (SHELL.includes(url.pathname) && url.search === '') return 'shell';
  return 'network';
}
