// The proxy's stores live in @hitl/store, beside their contract suite.
export { MemoryProxyStore, type ProxyStore, RedisProxyStore } from '@hitl/store';
export type { ApprovalRequest, AskHuman, HumanVerdict } from './approval/ask-human.js';
export { InquiryAsker } from './approval/inquiry-asker.js';
export { NodeClients } from './approval/node-clients.js';
export { type AuditSink, type ProxyDecision, type ProxyOutcome, pinoAuditSink } from './audit/audit-sink.js';
export { type BackendSpec, backendId, backendName } from './backend/backend-spec.js';
export { callDigest, canonicalJson } from './core/call-digest.js';
export { createProxyLogger } from './logger.js';
export { decideGate, type GateDecision, type GateReason, type ToolHints } from './policy/gate.js';
export { loadPolicy, PolicyError, parsePolicy } from './policy/load-policy.js';
export { DEFAULT_POLICY, type Mode, type Policy, PolicySchema } from './policy/policy-schema.js';
export { buildProxyCore, type ProxyOptions } from './proxy-core.js';
export { type RunningProxy, startProxy } from './start-proxy.js';
export { runStdioProxy, type StdioProxyOptions } from './stdio-proxy.js';
export { VERSION } from './version.js';
