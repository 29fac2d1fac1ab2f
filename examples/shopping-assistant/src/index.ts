export { type AssistantDeps, type AssistantOptions, runAssistant } from './agent/assistant.js';
export { type Brain, type PhraseInput, type PickInput, type Picks, ruleBrain } from './agent/brain.js';
export {
  type AskHooks,
  type ChannelOptions,
  connectInquiries,
  type InquiryChannel,
} from './agent/inquiry-channel.js';
export { type LlmOptions, llmBrain } from './agent/llm-brain.js';
export { CATALOGUE_SEED, generateCatalogue } from './catalogue/generate.js';
export { CATALOGUE_PATH, loadCatalogue } from './catalogue/load.js';
export { type Catalogue, CatalogueSchema, type Product, ProductSchema } from './catalogue/schema.js';
export { type CliIo, EXIT, runCli } from './cli/main.js';
export type { Fact, Facts, ShoppingRequest, Slot, SlotValue } from './planner/facts.js';
export { parseRequest } from './planner/parse-request.js';
export { nextStep, type Step, type Style } from './planner/plan.js';
export type { Recommendation } from './planner/recommend.js';
export { classifyResult, type Reply } from './planner/reply.js';
export { search } from './planner/search.js';
export type { ConversationResult, Ending, TranscriptEvent } from './transcript/events.js';
