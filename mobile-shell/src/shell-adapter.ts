import type { AppPlugin } from '@capacitor/app';
import type { PermissionState } from '@capacitor/core';
import type { LocalNotificationsPlugin } from '@capacitor/local-notifications';
import type { ConnectionStatus, DeviceClient } from '@hitl/client';
import { notificationFor, notificationId } from './notification-content.js';

/** The part of `@capacitor/local-notifications` the shell uses (native, or its web implementation). */
export type NotificationsPort = Pick<
  LocalNotificationsPlugin,
  'checkPermissions' | 'requestPermissions' | 'schedule' | 'cancel' | 'removeDeliveredNotifications'
>;

/** The part of `@capacitor/app` the shell uses: its `pause` and `resume` events. */
export type AppPort = Pick<AppPlugin, 'addListener'>;

export interface ShellDeps {
  device: Pick<DeviceClient, 'on' | 'getSnapshot'>;
  notifications: NotificationsPort;
  app: AppPort;
  /** Opens a fresh connection, which re-syncs the pending list (the web app re-creates its client). */
  reconnect(): void;
  now(): number;
  /** A failure on the plugin side (a denied permission is not one). */
  onError?(error: unknown): void;
  /**
   * A resume reconnects when the app was away at least this long (a socket may look open but be dead
   * after the OS suspended the app), or whenever the connection is not up. Default 3 s.
   */
  minPauseMs?: number;
}

export interface ShellHandle {
  /** Settles once notification permission is known (asked for, if it never was). */
  readonly permission: Promise<PermissionState>;
  /** Stops listening to the device and the app. */
  detach(): Promise<void>;
}

/**
 * Whether coming back to the foreground should open a fresh connection: after `minPauseMs` away (an OS
 * that suspended the app may leave a socket that looks open but is dead), or whenever it is not up;
 * never for a token the server refused (a new connection would be refused too).
 */
export function shouldReconnect(awayMs: number, status: ConnectionStatus, minPauseMs: number): boolean {
  if (status === 'rejected') return false;
  return awayMs >= minPauseMs || status !== 'connected';
}

/** Permission to notify, asking once when it was never asked (a native app may ask without a click). */
async function notificationPermission(deps: ShellDeps): Promise<PermissionState> {
  try {
    const { display } = await deps.notifications.checkPermissions();
    if (display !== 'prompt' && display !== 'prompt-with-rationale') return display;
    return (await deps.notifications.requestPermissions()).display;
  } catch (error) {
    deps.onError?.(error);
    return 'denied';
  }
}

/**
 * What the mobile shell adds to the device page: a local notification for each inquiry this device had
 * not seen, removed again when the inquiry ends (here or on another device), and a reconnect + re-sync
 * when the app comes back to the foreground. Plugin objects are passed in, so the same code runs against
 * the native plugins, their web implementations, or anything with the same interface.
 *
 * Never `await` a plugin object itself: Capacitor plugins are proxies that answer every property,
 * `then` included.
 */
export function attachShell(deps: ShellDeps): ShellHandle {
  const { device, notifications, app } = deps;
  const minPauseMs = deps.minPauseMs ?? 3000;
  const report = (error: unknown) => deps.onError?.(error);
  const permission = notificationPermission(deps);
  let pausedAt: number | undefined;

  const offNew = device.on('new', (inquiry) => {
    void permission
      .then(async (state) => {
        if (state !== 'granted') return;
        await notifications.schedule({ notifications: [notificationFor(inquiry, deps.now())] });
      })
      .catch(report);
  });
  const offResolved = device.on('resolved', ({ inquiryId }) => {
    const id = notificationId(inquiryId);
    Promise.all([
      notifications.cancel({ notifications: [{ id }] }),
      notifications.removeDeliveredNotifications({ notifications: [{ id, title: '', body: '' }] }),
    ]).catch(report);
  });

  const onPause = () => {
    pausedAt = deps.now();
  };
  const onResume = () => {
    const away = pausedAt === undefined ? Number.POSITIVE_INFINITY : deps.now() - pausedAt;
    pausedAt = undefined;
    if (shouldReconnect(away, device.getSnapshot().status, minPauseMs)) deps.reconnect();
  };
  const handles = Promise.all([app.addListener('pause', onPause), app.addListener('resume', onResume)]);
  handles.catch(report);

  return {
    permission,
    detach: async () => {
      offNew();
      offResolved();
      const listening = await handles.catch(() => []);
      await Promise.all(listening.map((handle) => handle.remove()));
    },
  };
}
