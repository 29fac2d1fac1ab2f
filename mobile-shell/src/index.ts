export { isNativeShell } from './native.js';
export {
  type InquiryNotification,
  notificationFor,
  notificationId,
  preview,
} from './notification-content.js';
export {
  type AppPort,
  attachShell,
  type NotificationsPort,
  type ShellDeps,
  type ShellHandle,
  shouldReconnect,
} from './shell-adapter.js';
