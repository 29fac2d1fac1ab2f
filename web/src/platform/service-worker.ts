import { isNativeShell } from '@hitl/mobile-shell';

/**
 * Registers `/sw.js` (web/public): the page becomes installable and opens offline, while API, MCP and
 * Socket.IO traffic is never cached. Not in the native shell (the app holds the files itself) and not
 * in development (Vite serves sources, not a build).
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || isNativeShell(window)) return;
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register('/sw.js').catch((error: unknown) => {
    console.warn('HITL: service worker not registered:', error);
  });
}
