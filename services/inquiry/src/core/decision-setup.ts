import type { TokenService } from '@hitl/auth';
import {
  createLocalDecider,
  createRemoteDecider,
  type DecisionLog,
  MemoryDecisionLog,
  openAiChatModel,
  RedisDecisionClaims,
  RedisDecisionLog,
  SqliteDecisionLog,
} from '@hitl/decision-agent';
import type { SqliteDatabase } from '@hitl/store';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { DecisionDeps } from './fallback.js';
import type { Clock } from './ports.js';

/** The node's own identity towards `hitl decide`: an ops-role token with this subject. */
export const NODE_SERVICE_SUBJECT = 'hitl-node';

/**
 * Builds the decision parts of a node: the decider (in this process, or `hitl decide` at
 * `HITL_DECISION_URL`, called with an ops-role token the node signs with the shared secret), the
 * audit log (a Redis Stream in distributed mode, the node's SQLite state file by default without
 * Redis, bounded memory with `HITL_STORE=memory`) and shared claims.
 */
export async function createDecisionParts(
  config: Config,
  parts: { redis?: Redis; database?: SqliteDatabase; tokens: TokenService; clock: Clock; logger: Logger },
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
  const log = parts.redis
    ? new RedisDecisionLog({ redis: parts.redis, max: config.decisionLogMax })
    : parts.database
      ? new SqliteDecisionLog({ db: parts.database, max: config.decisionLogMax })
      : new MemoryDecisionLog({ max: config.decisionLogMax, now: () => parts.clock.now() });
  return {
    decider,
    log,
    policy: config.policy,
    ...(parts.redis ? { claims: new RedisDecisionClaims(parts.redis) } : {}),
  };
}
