import {
  chooseStrategy,
  type Decider,
  type Decision,
  failClosed,
  type PolicyConfig,
  recheck,
  type StrategyChoice,
  suggestionsEnabled,
} from '@hitl/decisions';
import { type Deadlines, type Inquiry, prefillProblem, type Resolution } from '@hitl/protocol';
import type { DecisionClaims, DecisionLog, InquiryStore, ResolveResult } from '@hitl/store';
import type { Logger } from 'pino';
import { decisionResolution, type Ending, type FallbackEnding, fallbackTrigger } from './outcomes.js';
import type { Clock } from './ports.js';

/** What a node needs to run fallback strategies and keep the audit log. */
export interface DecisionDeps {
  decider: Decider;
  log: DecisionLog;
  policy: PolicyConfig;
  /** Shared claims (Redis) so one node decides per inquiry; one node alone needs none. */
  claims?: DecisionClaims;
}

/** Writes the decided resolution through the store's resolve-once step. */
export type WriteDecision = (resolution: Resolution, decision: Decision) => Promise<ResolveResult>;

/** A fallback ending and the strategy it calls for (never `preset_text`: the node writes that itself). */
export interface FallbackPlan {
  ending: FallbackEnding;
  choice: StrategyChoice;
}

/** Least time kept between the end of a decision and the client tier, in ms. */
export const DECISION_MIN_MARGIN_MS = 500;
/** How much longer than its budget a decider may take before the node stops waiting, in ms. */
const LATE_MS = 250;
/** A claim outlives the decision deadline by this much, in ms. */
const CLAIM_SLACK_MS = 2000;
/** Longest time a suggestion may take, in ms. */
const SUGGEST_MAX_MS = 3000;

/**
 * When a fallback decision must be written by: before the client tier, keeping 60 % of the
 * service→client gap (at least 500 ms) so the held call (which returns `pending` at the midpoint of
 * that gap) still carries the decision.
 */
export function decisionDeadline(deadlines: Deadlines): number {
  const gap = deadlines.clientAt - deadlines.serviceAt;
  return deadlines.clientAt - Math.max(DECISION_MIN_MARGIN_MS, Math.ceil(gap * 0.6));
}

/**
 * Runs the fallback decision agent for inquiries that ended without a human answer. One decision
 * per inquiry per node (later endings join it; a service timer never waits for it), one per cluster
 * with shared claims; a human answer that lands meanwhile still wins the resolve.
 */
export class FallbackRunner {
  private readonly inFlight = new Map<string, Promise<ResolveResult>>();

  constructor(private readonly deps: DecisionDeps & { store: InquiryStore; clock: Clock; logger: Logger }) {}

  get log(): DecisionLog {
    return this.deps.log;
  }

  /** The machine strategy `ending` calls for, or undefined when the preset text (or a human) applies. */
  plan(inquiry: Inquiry, ending: Ending): FallbackPlan | undefined {
    const trigger = fallbackTrigger(ending);
    if (!trigger) return undefined;
    const choice = chooseStrategy(this.deps.policy, inquiry, trigger);
    return choice.strategy === 'preset_text' ? undefined : { ending: ending as FallbackEnding, choice };
  }

  run(inquiry: Inquiry, plan: FallbackPlan, write: WriteDecision): Promise<ResolveResult> {
    const id = inquiry.inquiryId;
    const running = this.inFlight.get(id);
    if (running) {
      if (plan.ending.type === 'service-timer') return Promise.resolve({ kind: 'lost', inquiry });
      return running.then((r) => (r.kind === 'won' ? { kind: 'lost', inquiry: r.inquiry } : r));
    }
    const task = this.decideAndWrite(inquiry, plan, write).finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, task);
    return task;
  }

  private async decideAndWrite(
    inquiry: Inquiry,
    plan: FallbackPlan,
    write: WriteDecision,
  ): Promise<ResolveResult> {
    const { claims, clock, store } = this.deps;
    const deadline = decisionDeadline(inquiry.deadlines);
    if (
      claims &&
      !(await claims.claim(inquiry.inquiryId, Math.max(0, deadline - clock.now()) + CLAIM_SLACK_MS))
    ) {
      // Another node decides; a timer leaves it at that, a device waits for the outcome.
      if (plan.ending.type === 'service-timer') return { kind: 'lost', inquiry };
      const latest = await store.waitForResolution(inquiry.inquiryId, {
        deadline: deadline + CLAIM_SLACK_MS,
      });
      return { kind: 'lost', inquiry: latest ?? inquiry };
    }
    const decision = await this.decide(inquiry, plan, deadline);
    return write(decisionResolution(plan.ending, decision, clock.now()), decision);
  }

  private async decide(
    inquiry: Inquiry,
    { ending, choice }: FallbackPlan,
    deadline: number,
  ): Promise<Decision> {
    const { clock, decider } = this.deps;
    const log = this.deps.logger.child({ inquiryId: inquiry.inquiryId, userId: inquiry.userId });
    const started = clock.now();
    const closed = (reason: string, error?: string): Decision => ({
      ...failClosed(inquiry, choice.requested, reason, error ? { error } : {}),
      latencyMs: Math.max(0, clock.now() - started),
    });
    if (choice.forbidden) {
      log.warn(
        { requested: choice.requested, reason: choice.forbidden },
        'fallback strategy forbidden; failing closed',
      );
      return closed(choice.forbidden);
    }
    const budgetMs = Math.max(0, Math.floor(deadline - started));
    let timer: unknown;
    const late = new Promise<Decision>((resolve) => {
      timer = clock.setTimeout(() => {
        const error = `the decision agent did not answer within ${budgetMs} ms`;
        resolve(closed(error, error));
      }, budgetMs + LATE_MS);
    });
    let decision: Decision;
    try {
      const asked = decider.decide({ inquiry, trigger: ending.type, strategy: choice.strategy, budgetMs });
      decision = recheck(inquiry, await Promise.race([asked, late]));
    } catch (error) {
      const message = `the decision agent failed: ${error instanceof Error ? error.message : String(error)}`;
      decision = closed(message, message);
    } finally {
      clock.clearTimeout(timer);
    }
    if (decision.strategy !== choice.strategy) {
      log.warn(
        { requested: choice.strategy, rationale: decision.rationale, error: decision.error },
        'fallback failed closed',
      );
    }
    return decision;
  }

  /**
   * Proposes an answer for an inquiry that arrived without one, when the user's policy asks for
   * suggestions; `updated` hears the inquiry once the suggestion is stored.
   */
  async suggest(inquiry: Inquiry, updated: (inquiry: Inquiry) => void): Promise<void> {
    const { decider, policy, store, clock, logger } = this.deps;
    if (inquiry.defaultAnswer !== undefined || inquiry.kind === 'approval') return;
    if (!suggestionsEnabled(policy, inquiry)) return;
    const budgetMs = Math.min(SUGGEST_MAX_MS, Math.floor((inquiry.deadlines.deviceAt - clock.now()) / 3));
    if (budgetMs < 50) return;
    const log = logger.child({ inquiryId: inquiry.inquiryId, userId: inquiry.userId });
    try {
      const suggestion = await decider.suggest({ inquiry, budgetMs });
      const answer = suggestion.answer;
      if (answer === undefined || prefillProblem(inquiry, answer)) {
        log.debug({ rationale: suggestion.rationale, error: suggestion.error }, 'no suggested answer');
        return;
      }
      if (await store.suggest(inquiry.inquiryId, answer)) {
        log.info({ model: suggestion.model }, 'suggested answer attached');
        updated({ ...inquiry, suggestedAnswer: answer });
      }
    } catch (error) {
      log.warn({ err: error }, 'suggestion failed');
    }
  }
}
