import type { TokenService } from '@hitl/auth';
import { createLocalDecider, createRemoteDecider, openAiChatModel } from '@hitl/decisions';
import type { Config } from '@hitl/runtime';
import type { DecisionClaims, DecisionLog } from '@hitl/store';
import type { Logger } from 'pino';
import type { DecisionDeps } from './fallback.js';
import type { Clock } from './ports.js';

/** The node's own identity towards `hitl decide`: an ops-role token with this subject. */
export const NODE_SERVICE_SUBJECT = 'hitl-node';

/**
 * Builds the decision parts of a node: the decider (in this process, or `hitl decide` at
 * `HITL_DECISION_URL`, called with an ops-role token the node signs with the shared secret), over
 * the backend's audit log and shared claims.
 */
export async function createDecisionParts(
  config: Config,
  parts: {
    log: DecisionLog;
    claims: DecisionClaims | undefined;
    tokens: TokenService;
    clock: Clock;
    logger: Logger;
  },
): Promise<DecisionDeps & { log: DecisionLog }> {
  const logger = parts.logger.child({ component: 'decision-agent' });
  const decider = config.decisionUrl
    ? createRemoteDecider({
        url: config.decisionUrl,
        token: await parts.tokens.sign({ sub: NODE_SERVICE_SUBJECT, role: 'ops', name: 'inquiry node' }),
        clock: parts.clock,
      })
    : createLocalDecider({
        ...(config.llm ? { model: openAiChatModel(config.llm) } : {}),
        clock: parts.clock,
        logger,
      });
  return {
    decider,
    log: parts.log,
    policy: config.policy,
    ...(parts.claims ? { claims: parts.claims } : {}),
  };
}
