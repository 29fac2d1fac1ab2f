export { StateLockedError } from '@hitl/store';
export { loadOrCreateSecret } from './auth/secret.js';
export { TokenService } from './auth/tokens.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export { type AuthVariables, requireRole, tokenFingerprint } from './http/auth.js';
export { type HostPolicy, hostOriginProblem } from './http/host-guard.js';
export { createLogger } from './logger.js';
export { type NodeOptions, type RunningNode, startNode } from './node.js';
export { VERSION } from './version.js';
