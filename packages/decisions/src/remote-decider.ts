import { failClosed } from './finalize.js';
import { DECIDE_PATH, SUGGEST_PATH } from './paths.js';
import {
  type Decider,
  type Decision,
  type DecisionRequest,
  DecisionSchema,
  type Suggestion,
  SuggestionSchema,
} from './types.js';

export interface RemoteDeciderOptions {
  /** Where `hitl decide` listens (`HITL_DECISION_URL`). */
  url: string;
  /** An ops-role token signed with the shared `HITL_SECRET`. */
  token: string;
  clock?: { now(): number };
}

/** Time kept for the round trip, in ms. */
const NETWORK_SLACK_MS = 100;

/**
 * The decision agent behind `HITL_DECISION_URL`. A reply that is late (past the budget), not 200,
 * or not a valid decision becomes `fail_closed` with the error recorded.
 */
export function createRemoteDecider(options: RemoteDeciderOptions): Decider {
  const base = options.url.replace(/\/+$/, '');
  const now = () => (options.clock ?? Date).now();
  const post = async (path: string, body: unknown, budgetMs: number): Promise<unknown> => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      signal: AbortSignal.timeout(Math.max(1, budgetMs)),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the decision agent answered HTTP ${response.status}`);
    }
    return response.json();
  };
  return {
    async decide(request: DecisionRequest): Promise<Decision> {
      const started = now();
      try {
        // The agent gets a little less than the budget, so its own fail-closed reply arrives in time.
        const remote = { ...request, budgetMs: Math.max(0, request.budgetMs - NETWORK_SLACK_MS) };
        const parsed = DecisionSchema.safeParse(await post(DECIDE_PATH, remote, request.budgetMs));
        if (parsed.success) return parsed.data;
        throw new Error('the decision agent sent an invalid decision');
      } catch (error) {
        const message = describe(error, request.budgetMs);
        const verdict = failClosed(request.inquiry, request.strategy, message, { error: message });
        return { ...verdict, latencyMs: Math.max(0, now() - started) };
      }
    },
    async suggest(request): Promise<Suggestion> {
      try {
        const parsed = SuggestionSchema.safeParse(await post(SUGGEST_PATH, request, request.budgetMs));
        if (parsed.success) return parsed.data;
        return { rationale: 'no suggestion', error: 'the decision agent sent an invalid suggestion' };
      } catch (error) {
        return { rationale: 'no suggestion', error: describe(error, request.budgetMs) };
      }
    },
  };
}

function describe(error: unknown, budgetMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `the decision agent did not answer within ${budgetMs} ms`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith('the decision agent') ? message : `the decision agent is unreachable: ${message}`;
}
