import { prefillProblem } from '@hitl/protocol';
import type { Logger } from 'pino';
import { failClosed, finalize, triggerWords, type Verdict } from './finalize.js';
import type { ChatModel } from './llm/chat-model.js';
import { decisionMessages, suggestionMessages } from './llm/prompt.js';
import { parseModelReply, replyProposal } from './llm/reply.js';
import { optionNamedInContext, ruleBasedAgent } from './rule-based.js';
import { approveStrategy, defaultAnswerStrategy, randomStrategy, type StrategyInput } from './strategies.js';
import { clip, type Decider, type DecisionRequest, type Suggestion, type SuggestRequest } from './types.js';

export interface LocalDeciderDeps {
  /** The model behind the `agent` strategy; without one, `agent` is the rule-based decider. */
  model?: ChatModel;
  clock?: { now(): number };
  logger?: Logger;
}

/** Time kept back from the budget to answer after the model gives up, in ms. */
const REPLY_MARGIN_MS = 20;
/** Below this many ms there is no point asking a model. */
const MIN_MODEL_MS = 50;

/**
 * The decision agent in this process. Every strategy but `agent` with a model is a pure function;
 * `agent` asks the model within the budget and fails closed on a bad, slow or failed reply.
 *
 * @example
 * const decider = createLocalDecider({ model: openAiChatModel({ url, model: 'gpt-4o-mini' }) });
 * const decision = await decider.decide({ inquiry, trigger: 'service-timer', strategy: 'agent', budgetMs: 5000 });
 */
export function createLocalDecider(deps: LocalDeciderDeps = {}): Decider {
  const now = () => (deps.clock ?? Date).now();
  return {
    async decide(request) {
      const started = now();
      const verdict = await verdictFor(request, deps.model);
      const decision = { ...verdict, requested: request.strategy, latencyMs: Math.max(0, now() - started) };
      const seed = request.strategy === 'random' ? (request.seed ?? request.inquiry.inquiryId) : undefined;
      deps.logger?.[decision.strategy === request.strategy ? 'info' : 'warn'](
        {
          inquiryId: request.inquiry.inquiryId,
          requested: request.strategy,
          strategy: decision.strategy,
          latencyMs: decision.latencyMs,
          ...(seed !== undefined ? { seed } : {}),
          ...(decision.error ? { error: decision.error } : {}),
          rationale: decision.rationale,
        },
        decision.strategy === request.strategy ? 'fallback decided' : 'fallback failed closed',
      );
      return decision;
    },
    suggest: (request) => suggestionFor(request, deps.model),
  };
}

async function verdictFor(request: DecisionRequest, model: ChatModel | undefined): Promise<Verdict> {
  const { inquiry, trigger, strategy } = request;
  const input: StrategyInput = { inquiry, trigger, seed: request.seed ?? inquiry.inquiryId };
  switch (strategy) {
    case 'fail_closed':
      return failClosed(inquiry, strategy, `${triggerWords(trigger)} and the policy is fail_closed`);
    case 'preset_text':
      return failClosed(
        inquiry,
        strategy,
        'preset_text is written by the inquiry node, not the decision agent',
      );
    case 'default_answer':
      return finalize(inquiry, strategy, defaultAnswerStrategy(input));
    case 'random':
      return finalize(inquiry, strategy, randomStrategy(input));
    case 'approve':
      return finalize(inquiry, strategy, approveStrategy(input));
    case 'agent':
      return model ? askModel(request, model) : finalize(inquiry, strategy, ruleBasedAgent(input));
  }
}

async function askModel(request: DecisionRequest, model: ChatModel): Promise<Verdict> {
  const { inquiry, trigger } = request;
  const fail = (error: string) => failClosed(inquiry, 'agent', error, { model: model.model, error });
  const budget = request.budgetMs - REPLY_MARGIN_MS;
  if (budget < MIN_MODEL_MS) return fail(`no time was left to ask the model (${request.budgetMs} ms)`);
  let text: string;
  try {
    text = await model.complete(decisionMessages(inquiry, trigger), AbortSignal.timeout(budget));
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  const parsed = parseModelReply(text);
  if (!parsed.ok) return fail(parsed.error);
  const proposal = replyProposal(inquiry, parsed.reply);
  if (!proposal.ok) return fail(proposal.error);
  return finalize(inquiry, 'agent', { ...proposal.proposal, model: model.model });
}

async function suggestionFor(request: SuggestRequest, model: ChatModel | undefined): Promise<Suggestion> {
  const { inquiry } = request;
  if (inquiry.kind === 'approval') return { rationale: 'approvals get no suggested answer' };
  if (!model) {
    const named = optionNamedInContext(inquiry);
    return named === undefined
      ? { rationale: 'the context names no single option' }
      : { answer: named, rationale: `the context names "${named}"` };
  }
  const budget = request.budgetMs - REPLY_MARGIN_MS;
  if (budget < MIN_MODEL_MS) return { rationale: 'no time to ask the model', model: model.model };
  try {
    const parsed = parseModelReply(
      await model.complete(suggestionMessages(inquiry), AbortSignal.timeout(budget)),
    );
    if (!parsed.ok) return { rationale: 'no suggestion', model: model.model, error: clip(parsed.error) };
    const { decision, answer, rationale } = parsed.reply;
    if (decision !== 'answer' || answer === undefined)
      return { rationale: clip(rationale), model: model.model };
    const problem = prefillProblem(inquiry, answer);
    if (problem)
      return { rationale: 'no suggestion', model: model.model, error: clip(`unfit suggestion: ${problem}`) };
    return { answer, rationale: clip(rationale), model: model.model };
  } catch (error) {
    return {
      rationale: 'no suggestion',
      model: model.model,
      error: clip(String(error instanceof Error ? error.message : error)),
    };
  }
}
