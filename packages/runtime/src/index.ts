export { type Backend, type BackendKind, type BackendOptions, openBackend } from './backend.js';
export { isSecretVar } from './config/env-vars.js';
export { redactUrl, scrub, urlPassword } from './config/redact.js';
export {
  isUnreachableSubject,
  PLACEHOLDER_VAPID_SUBJECT,
  type VapidKeys,
  VapidKeysSchema,
  vapidKeysPath,
  vapidProblems,
  writeVapidFile,
} from './config/vapid-keys.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export {
  applyHttpLimits,
  defaultMaxConnections,
  HEADERS_TIMEOUT_MS,
  HTTP_SERVER_OPTIONS,
  KEEP_ALIVE_TIMEOUT_MS,
  openFileLimit,
  REQUEST_TIMEOUT_MS,
} from './http-limits.js';
export { createLogger, endLogOutput, type Logger } from './logger.js';
export {
  loadOrCreateSecret,
  MIN_SECRET_CHARS,
  readPrivateFile,
  SecretFileError,
  type SecretSource,
  safeStateDir,
} from './secret.js';
export { ShutdownList } from './shutdown-list.js';
