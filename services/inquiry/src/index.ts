export {
  type AuthVariables,
  jsonRpcError,
  jsonRpcErrorOf,
  jsonRpcRefusal,
  requireRole,
} from '@hitl/mcp-http';
// The runtime's config, secret and logger, as the node's callers have always imported them.
export {
  type Config,
  ConfigError,
  createLogger,
  endLogOutput,
  loadConfig,
  loadOrCreateSecret,
  redactUrl,
  SecretFileError,
} from '@hitl/runtime';
export { StateLockedError } from '@hitl/store';
export { endRecord, jsonDigest, voteRecord } from './audit/audit-records.js';
export { Auditor } from './audit/auditor.js';
export { followSharedRevocations, type RevocationReceipt, revokeInSharedStore } from './auth/revoke.js';
export { type NodeOptions, type RunningNode, startNode } from './node.js';
export { VERSION } from './version.js';
