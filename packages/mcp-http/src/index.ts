export { limitBody } from './body-limit.js';
export { CallAbort } from './call-abort.js';
export { ChatDoorBase } from './chat-door-base.js';
export { type ChatSessionDeps, ChatSessions, sessionModes } from './chat-sessions.js';
export {
  type AuthVariables,
  guardHost,
  type RequestBudget,
  rateLimit,
  rateLimited,
  requireRole,
} from './doors.js';
export {
  type ChatClient,
  type ElicitationPlan,
  messageOf,
  planElicitation,
  REASON_CHARS,
} from './elicitation-plan.js';
export { type ChatReply, replyOf } from './elicitation-reply.js';
export { errorHandler, jsonRpcErrors, type KnownError } from './error-handler.js';
export {
  type Abortable,
  type Cancellation,
  cancellations,
  type HeldCall,
  HeldCalls,
  logAmbiguousCancel,
} from './held-calls.js';
export {
  errorResponse,
  jsonRpcDataOf,
  jsonRpcError,
  jsonRpcErrorOf,
  jsonRpcRefusal,
  restErrorOf,
} from './http-errors.js';
export { isResponseOnly, type ResponseMessage, responsesIn } from './json-rpc-responses.js';
export type { LogSink } from './log-sink.js';
export { type McpBodyVariables, messageCount, readMcpBody, tooDeepResponse } from './mcp-body.js';
export {
  asksForProgress,
  type McpEndpointDeps,
  type McpRequest,
  mcpEndpoint,
  type PerRequestServer,
} from './mcp-endpoint.js';
export { UNSUPPORTED_PROTOCOL_VERSION, unsupportedVersion } from './protocol-version.js';
export { type EndpointSession, type EndpointSessions, SESSION_HEADER, sessionIdOf } from './sessions.js';
export { type KeepAliveStream, SseKeepAlive } from './sse-keep-alive.js';
export { NodeSink, SSE_HEADERS, type SseSink, streamSink } from './sse-sink.js';
