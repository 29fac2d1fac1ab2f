export { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
export { type Clock, systemClock } from './clock.js';
export {
  type ConnectionStatus,
  createDeviceClient,
  type DeviceClient,
  type DeviceClientEvents,
  type DeviceClientOptions,
  type DeviceSnapshot,
  type ResolvedNotice,
} from './device-client.js';
export { DeviceTimer, type DeviceTimerDeps } from './device-timer.js';
export {
  applyNew,
  applyResolved,
  applySync,
  applyUpdated,
  ENDED_MEMORY,
  emptyPendingState,
  newestFirst,
  type PendingInquiry,
  type PendingState,
  received,
} from './pending.js';
