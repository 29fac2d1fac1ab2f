export { failClosed, finalize, recheck, triggerWords, type Verdict } from './finalize.js';
export {
  APPROVAL_THRESHOLD,
  approvalGate,
  confidenceProblem,
  type GateResult,
  validConfidence,
} from './gate.js';
export {
  type ChatModel,
  type ChatModelConfig,
  completionsUrl,
  ModelError,
  openAiChatModel,
} from './llm/chat-model.js';
export { type ChatMessage, decisionMessages, suggestionMessages } from './llm/prompt.js';
export { type ModelReply, ModelReplySchema, parseModelReply, replyProposal } from './llm/reply.js';
export { createLocalDecider, type LocalDeciderDeps } from './local-decider.js';
export { DECIDE_PATH, SUGGEST_PATH } from './paths.js';
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
} from './policy.js';
export { createRemoteDecider, type RemoteDeciderOptions } from './remote-decider.js';
export { optionNamedInContext, ruleBasedAgent } from './rule-based.js';
export {
  approveStrategy,
  defaultAnswerStrategy,
  formDefaults,
  randomStrategy,
  type StrategyInput,
} from './strategies.js';
export { counterFor, MAX_BUCKETS, summarize } from './summary.js';
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
} from './types.js';
