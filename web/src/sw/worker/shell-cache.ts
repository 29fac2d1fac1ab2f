import { SHELL, strategyFor } from '../shell-routes';

/**
 * The offline shell: makes the device page installable ("add to home screen") and opens it without a
 * network. It caches only the page and its files. It never touches the API, the MCP endpoint,
 * Socket.IO or health checks: those requests go straight to the network, as if it were not there, so an
 * answer can never be served from a cache or held back by one.
 */
const CACHE = 'hitl-shell-v1';
/** Hashed build files kept at most (oldest dropped first); a few builds' worth. */
const MAX_ASSETS = 80;

/** Keeps a good, same-origin response (never an error page, never a redirect, never opaque). */
async function keep(cache: Cache, key: RequestInfo, response: Response): Promise<void> {
  if (response.ok && response.type === 'basic') await cache.put(key, response.clone());
}

async function networkFirst(request: Request, key: RequestInfo): Promise<Response> {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    await keep(cache, key, response);
    return response;
  } catch (error) {
    const cached = await cache.match(key);
    if (cached) return cached;
    throw error;
  }
}

async function cacheFirst(request: Request): Promise<Response> {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  await keep(cache, request, response);
  const assets = (await cache.keys()).filter((r) => new URL(r.url).pathname.startsWith('/assets/'));
  for (const old of assets.slice(0, Math.max(0, assets.length - MAX_ASSETS))) await cache.delete(old);
  return response;
}

export function installShell(sw: ServiceWorkerGlobalScope): void {
  sw.addEventListener('install', (event) => {
    event.waitUntil(
      caches
        .open(CACHE)
        .then((cache) => cache.addAll(SHELL))
        .then(() => sw.skipWaiting()),
    );
  });

  sw.addEventListener('activate', (event) => {
    event.waitUntil(
      caches
        .keys()
        .then((names) =>
          Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))),
        )
        .then(() => sw.clients.claim()),
    );
  });

  sw.addEventListener('fetch', (event) => {
    const strategy = strategyFor(event.request, sw.location.origin);
    if (strategy === 'network') return;
    // The page is stored under "/" only: a device link's ?token=… never reaches the cache.
    if (strategy === 'page') event.respondWith(networkFirst(event.request, '/'));
    else if (strategy === 'shell') event.respondWith(networkFirst(event.request, event.request));
    else event.respondWith(cacheFirst(event.request));
  });
}
