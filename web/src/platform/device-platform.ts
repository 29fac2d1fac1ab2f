import type { DeviceClient } from '@hitl/client';
import { isNativeShell, shouldReconnect } from '@hitl/mobile-shell';
import { notifyNewInquiry } from '../terminal/notify';

export interface PlatformHooks {
  /** Drops the device client and makes a fresh one, which re-syncs on connect. */
  reconnect(): void;
}

/** In a browser tab, coming back after this long reconnects (tabs are switched all day). */
const BROWSER_MIN_AWAY_MS = 30_000;

/**
 * Wires one device client to where the page runs and returns the detach function. Inside the native
 * shell: local notifications and a reconnect on app resume (`@hitl/mobile-shell`, loaded only there).
 * In a browser (or an installed PWA): the Notification API, and a reconnect when a tab that was hidden
 * for a while is shown again.
 */
export function attachPlatform(device: DeviceClient, hooks: PlatformHooks): () => void {
  return isNativeShell(window) ? attachNative(device, hooks) : attachBrowser(device, hooks);
}

function attachNative(device: DeviceClient, hooks: PlatformHooks): () => void {
  let detach: (() => Promise<void>) | undefined;
  let stopped = false;
  const warn = (error: unknown) => console.warn('HITL shell:', error);
  import('@hitl/mobile-shell/capacitor')
    .then(({ attachNativeShell }) => {
      if (stopped) return;
      detach = attachNativeShell({ device, reconnect: hooks.reconnect, onError: warn }).detach;
    })
    .catch(warn);
  return () => {
    stopped = true;
    void detach?.();
  };
}

function attachBrowser(device: DeviceClient, hooks: PlatformHooks): () => void {
  const offNew = device.on('new', notifyNewInquiry);
  let hiddenAt: number | undefined;
  const onVisibility = () => {
    if (document.hidden) {
      hiddenAt = Date.now();
      return;
    }
    const away = hiddenAt === undefined ? 0 : Date.now() - hiddenAt;
    hiddenAt = undefined;
    if (shouldReconnect(away, device.getSnapshot().status, BROWSER_MIN_AWAY_MS)) hooks.reconnect();
  };
  document.addEventListener('visibilitychange', onVisibility);
  return () => {
    offNew();
    document.removeEventListener('visibilitychange', onVisibility);
  };
}
