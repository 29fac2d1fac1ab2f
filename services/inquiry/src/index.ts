export { loadOrCreateSecret } from './auth/secret.js';
export { TokenService } from './auth/tokens.js';
export { type Config, ConfigError, loadConfig } from './config.js';
export { createLogger } from './logger.js';
export { type NodeOptions, type RunningNode, startNode } from './node.js';
export { VERSION } from './version.js';
