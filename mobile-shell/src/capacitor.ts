import { App } from '@capacitor/app';
import { LocalNotifications } from '@capacitor/local-notifications';
import { attachShell, type ShellDeps, type ShellHandle } from './shell-adapter.js';

/**
 * The shell wired to the real Capacitor plugins (native inside the app). The web page imports this
 * lazily, and only when it runs inside the shell, so a browser never downloads Capacitor.
 */
export function attachNativeShell(
  options: Pick<ShellDeps, 'device' | 'reconnect' | 'onError' | 'minPauseMs'>,
): ShellHandle {
  return attachShell({ ...options, notifications: LocalNotifications, app: App, now: () => Date.now() });
}
