export { type DateTextOptions, formatAnswerBy, formatFullDate } from './answer-by.js';
export { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
export { type Clock, systemClock } from './clock.js';
export { createDeviceClient } from './device-client.js';
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
export { formatTimeLeft, spokenTimeLeft } from './time-left.js';
export type {
  ConnectionStatus,
  DeviceClient,
  DeviceClientEvents,
  DeviceClientOptions,
  DeviceSnapshot,
  ResolvedNotice,
} from './types.js';
