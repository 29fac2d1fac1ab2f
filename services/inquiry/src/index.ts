export { StateLockedError } from '@hitl/store';
export { followSharedRevocations, type RevocationReceipt, revokeInSharedStore } from './auth/revoke.js';
export { loadOrCreateSecret, SecretFileError } from './auth/secret.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export { type AuthVariables, requireRole } from './http/auth.js';
export { jsonRpcError, jsonRpcErrorOf, jsonRpcRefusal } from './http/errors.js';
export { createLogger, endLogOutput } from './logger.js';
export { type NodeOptions, type RunningNode, startNode } from './node.js';
export { VERSION } from './version.js';
