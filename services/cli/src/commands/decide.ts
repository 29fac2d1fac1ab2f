import { startDecisionServer } from '@hitl/decision-agent';
import { createLocalDecider, openAiChatModel } from '@hitl/decisions';
import { followSharedRevocations } from '@hitl/inquiry';
import { createLogger, loadOrCreateSecret } from '@hitl/runtime';
import type { Command } from 'commander';
import { exitOnSetupError, loadConfigOrExit } from '../config-or-exit.js';
import { exitWithParent } from '../exit-with-parent.js';

/**
 * `hitl decide`: the fallback decision agent as its own HTTP service, for nodes started with
 * `HITL_DECISION_URL`. Configured like `serve` (`PORT`, `HOST`, `HITL_SECRET` or the state folder,
 * `HITL_LLM_*`); nodes call it with an ops-role token signed by the same secret.
 */
export function registerDecide(program: Command): void {
  program
    .command('decide')
    .description(
      'Start the fallback decision agent as an HTTP service (point HITL_DECISION_URL at it); configured by environment',
    )
    .action(async () => {
      const config = loadConfigOrExit('decide');
      const { secret } = await loadOrCreateSecret(config.secret, config.stateDir).catch(
        exitOnSetupError('decide'),
      );
      const logger = createLogger(config.logLevel, config.nodeId ?? `decide-${process.pid}`);
      const model = config.llm ? openAiChatModel(config.llm) : undefined;
      // With the nodes' REDIS_URL, a token revoked there is refused here too.
      const revocations = await followSharedRevocations(config, logger);
      const server = await startDecisionServer({
        ...(revocations ? { isRevoked: revocations.isRevoked } : {}),
        port: config.port,
        host: config.host,
        secret,
        logger,
        hostPolicy: { allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins },
        decider: createLocalDecider({ ...(model ? { model } : {}), logger }),
      });
      process.stdout.write(
        `hitl decision agent at ${server.url} (${model ? `model ${model.model}` : 'rule-based, no HITL_LLM_URL'})\n`,
      );
      const stop = () => {
        Promise.all([server.close(), revocations?.close()]).then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
      exitWithParent();
    });
}
