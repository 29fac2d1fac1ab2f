import { randomUUID } from 'node:crypto';
import type { SendInquiryInput } from '@hitl/protocol';
import type { Catalogue } from '../catalogue/schema.js';
import { factsFromReply } from '../planner/apply-reply.js';
import { type Facts, mergeFacts, type ShoppingRequest } from '../planner/facts.js';
import { parseRequest } from '../planner/parse-request.js';
import { nextStep, type Step, type Style } from '../planner/plan.js';
import { toRecommendation } from '../planner/recommend.js';
import { classifyResult, type Reply } from '../planner/reply.js';
import { search } from '../planner/search.js';
import type { ConversationResult, Ending, TranscriptEvent } from '../transcript/events.js';
import type { Brain } from './brain.js';
import type { InquiryChannel } from './inquiry-channel.js';

export interface AssistantDeps {
  catalogue: Catalogue;
  inquiries: InquiryChannel;
  brain: Brain;
  /** Receives every transcript event as it happens. */
  emit?: (event: TranscriptEvent) => void;
  /** Aborting it cancels the open question and stops the assistant. */
  signal?: AbortSignal;
}

export interface AssistantOptions {
  style: Style;
  /** How long each question stays open, in ms (the service's own tier when absent). */
  timeoutMs?: number;
  /** Patient mode: how long the customer has to answer each question (`answerWithinMs`). */
  answerWithinMs?: number;
  /** How many products to recommend (default 3). */
  count?: number;
}

/** Safety net: every round fills at least one fact, so four rounds always suffice. */
const MAX_ROUNDS = 6;

type AskStep = Exclude<Step, { kind: 'search' }>;

interface Conversation {
  deps: AssistantDeps;
  options: AssistantOptions;
  request: ShoppingRequest;
  instructions: string;
  /** Prefix of the idempotency keys: a retried call re-attaches instead of asking twice. */
  id: string;
  facts: Facts;
  round: number;
  events: TranscriptEvent[];
  emit(event: TranscriptEvent): void;
}

/**
 * One conversation: read the customer's request and the `clarify_user_intent` prompt, ask for what is
 * missing through `send_inquiry` (one question per round, or one form), then search and recommend.
 */
export async function runAssistant(
  deps: AssistantDeps,
  text: string,
  options: AssistantOptions,
): Promise<ConversationResult> {
  const events: TranscriptEvent[] = [];
  const emit = (event: TranscriptEvent) => {
    events.push(event);
    deps.emit?.(event);
  };
  emit({ type: 'customer', text });
  const instructions = await deps.inquiries.instructions(text);
  emit({ type: 'instructions', prompt: 'clarify_user_intent', text: instructions });
  const request = parseRequest(text, deps.catalogue);
  emit({ type: 'understood', facts: request.facts });
  const c: Conversation = {
    ...{ deps, options, request, instructions, events, emit },
    id: randomUUID(),
    facts: request.facts,
    round: 0,
  };
  const asked = await gatherFacts(c);
  const ending = asked === 'cancelled' ? asked : await recommend(c);
  return {
    request: text,
    style: options.style,
    brain: deps.brain.name,
    ending,
    facts: c.facts,
    rounds: c.round,
    recommendations:
      ending === 'recommended' ? (events.findLast((e) => e.type === 'recommend')?.items ?? []) : [],
    events,
  };
}

/** Asks until the planner has what it needs; `cancelled` when a question was cancelled. */
async function gatherFacts(c: Conversation): Promise<'done' | 'cancelled'> {
  let step = nextStep(c.options.style, c.deps.catalogue, c.request, c.facts);
  while (step.kind !== 'search' && c.round < MAX_ROUNDS) {
    c.round += 1;
    const input = await inquiryInput(c, step);
    c.emit({
      type: 'ask',
      round: c.round,
      slots: step.slots,
      question: input.question,
      ...(input.options ? { options: input.options } : {}),
      ...(input.questions ? { questions: input.questions } : {}),
      ...(input.defaultAnswer !== undefined ? { proposed: input.defaultAnswer } : {}),
    });
    const reply = await ask(c, input);
    const learned = factsFromReply(step.slots, reply, step.candidates);
    c.facts = mergeFacts(c.facts, learned);
    c.emit({ type: 'reply', round: c.round, reply, facts: learned });
    if (reply.kind === 'cancelled' || c.deps.signal?.aborted) {
      c.emit({ type: 'stopped', reason: 'the question was cancelled; nothing was searched or recommended' });
      return 'cancelled';
    }
    step = nextStep(c.options.style, c.deps.catalogue, c.request, c.facts);
  }
  return 'done';
}

/** The `send_inquiry` arguments for a step, worded by the brain. */
async function inquiryInput(c: Conversation, step: AskStep): Promise<SendInquiryInput> {
  const draft = step.kind === 'ask' ? step.draft : { question: step.form.question };
  const question = await c.deps.brain.phraseQuestion({
    request: c.request.text,
    instructions: c.instructions,
    slots: step.slots,
    question: draft.question,
    ...('options' in draft ? { options: draft.options } : {}),
  });
  const base = {
    question,
    // What the person and a fallback decision agent see besides the question.
    context: { request: c.request.text, known: c.facts, productsInPlay: step.candidates.length },
    // If nobody answers, a decision agent may take the proposed default, and the reply says so.
    fallback: { onTimeout: 'default_answer' as const },
    idempotencyKey: `${c.id}:${c.round}`,
    ...(c.options.timeoutMs ? { timeoutMs: c.options.timeoutMs } : {}),
    ...(c.options.answerWithinMs ? { answerWithinMs: c.options.answerWithinMs } : {}),
  };
  if (step.kind === 'ask')
    return { ...base, options: step.draft.options, defaultAnswer: step.draft.proposed };
  return { ...base, format: 'form', questions: step.form.questions, defaultAnswer: step.form.defaults };
}

/** One `send_inquiry`, read as a `Reply`; cancelled before the service even answered is `cancelled`. */
async function ask(c: Conversation, input: SendInquiryInput): Promise<Reply> {
  const round = c.round;
  try {
    const result = await c.deps.inquiries.ask(input, {
      ...(c.deps.signal ? { signal: c.deps.signal } : {}),
      onPending: (inquiryId) => c.emit({ type: 'waiting', round, inquiryId }),
      onStillOpen: (inquiryId, checks) => c.emit({ type: 'still-open', round, inquiryId, checks }),
    });
    return classifyResult(result);
  } catch (error) {
    if (c.deps.signal?.aborted) return { kind: 'cancelled' };
    throw error;
  }
}

/** Searches with every fact and recommends the brain's picks among what fits. */
async function recommend(c: Conversation): Promise<Ending> {
  const found = search(c.deps.catalogue, c.request, c.facts);
  c.emit({ type: 'search', steps: found.steps, relaxed: found.relaxed });
  if (found.ranked.length === 0) {
    c.emit({ type: 'stopped', reason: 'nothing in the catalogue fits, so there is nothing to recommend' });
    return 'nothing-found';
  }
  const picks = await c.deps.brain.pickProducts({
    request: c.request.text,
    instructions: c.instructions,
    facts: c.facts,
    ranked: found.ranked,
    count: c.options.count ?? 3,
  });
  const items = picks.products.map((p) => toRecommendation(p, c.facts, found.relaxed));
  c.emit({ type: 'recommend', items, ...(picks.note ? { note: picks.note } : {}) });
  return 'recommended';
}
