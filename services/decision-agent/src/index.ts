export {
  auditContext,
  compareIds,
  type DecisionLog,
  matches,
  type NewDecisionRecord,
  RECORD_ID,
} from './audit/decision-log.js';
export { MemoryDecisionLog } from './audit/memory-log.js';
export { RedisDecisionLog, type RedisDecisionLogOptions } from './audit/redis-log.js';
export { SqliteDecisionLog, type SqliteDecisionLogOptions } from './audit/sqlite-log.js';
export { counterFor, MAX_BUCKETS, summarize } from './audit/summary.js';
export { type DecisionClaims, RedisDecisionClaims } from './core/claims.js';
export { failClosed, finalize, recheck, triggerWords, type Verdict } from './core/finalize.js';
export {
  APPROVAL_THRESHOLD,
  approvalGate,
  confidenceProblem,
  type GateResult,
  validConfidence,
} from './core/gate.js';
export { createLocalDecider, type LocalDeciderDeps } from './core/local-decider.js';
export {
  chooseStrategy,
  loadPolicyFile,
  type PolicyConfig,
  PolicyConfigSchema,
  type PolicyInquiry,
  type PolicyRule,
  type StrategyChoice,
  suggestionsEnabled,
  withForbidden,
} from './core/policy.js';
export { optionNamedInContext, ruleBasedAgent } from './core/rule-based.js';
export {
  approveStrategy,
  defaultAnswerStrategy,
  formDefaults,
  randomStrategy,
  type StrategyInput,
} from './core/strategies.js';
export {
  clip,
  type Decider,
  type Decision,
  type DecisionInquiry,
  type DecisionRequest,
  DecisionRequestSchema,
  DecisionSchema,
  type FallbackTrigger,
  FallbackTriggerSchema,
  type Proposal,
  RATIONALE_CHARS,
  type Suggestion,
  SuggestionSchema,
  type SuggestRequest,
  SuggestRequestSchema,
} from './core/types.js';
export { createRemoteDecider, type RemoteDeciderOptions } from './http/remote-decider.js';
export {
  DECIDE_PATH,
  type DecisionAppDeps,
  decisionApp,
  type RunningDecisionServer,
  SUGGEST_PATH,
  startDecisionServer,
} from './http/server.js';
export { checkServiceToken, type IsRevoked, requireServiceToken } from './http/service-auth.js';
export {
  type ChatModel,
  type ChatModelConfig,
  completionsUrl,
  ModelError,
  openAiChatModel,
} from './llm/chat-model.js';
export { type ChatMessage, decisionMessages, suggestionMessages } from './llm/prompt.js';
export { type ModelReply, ModelReplySchema, parseModelReply, replyProposal } from './llm/reply.js';
