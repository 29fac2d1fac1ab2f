import { fileURLToPath } from 'node:url';
import { type RunningNode, StateLockedError, startNode } from '@hitl/inquiry';
import type { Command } from 'commander';
import { loadConfigOrExit } from '../config-or-exit.js';

const WEB_ROOT = fileURLToPath(new URL('../../../../web/dist', import.meta.url));

/** `hitl serve`: runs the node in this very process, so signals and memory figures are its own. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Start an inquiry node (HTTP + MCP + Socket.IO on one port); configured by environment')
    .action(async () => {
      const config = loadConfigOrExit('serve');
      const node = await startNode(config, { webRoot: WEB_ROOT }).catch((error: unknown) => {
        if (!(error instanceof StateLockedError)) throw error;
        process.stderr.write(`hitl serve: ${error.message}\n`);
        process.exit(1);
      });
      if (!config.secret && !config.redisUrl && !config.redisClusterNodes) await printWelcome(node);
      stopOnSignals(node);
    });
}

async function printWelcome(node: RunningNode): Promise<void> {
  const agent = await node.tokens.sign({ sub: 'demo', role: 'agent', name: 'demo agent' });
  const device = await node.tokens.sign({ sub: 'demo', role: 'device', name: 'browser' });
  const ops = await node.tokens.sign({ sub: 'ops', role: 'ops' });
  process.stdout.write(
    [
      '',
      `HITL inquiry service (embedded store) at ${node.url}`,
      `  MCP endpoint:  ${node.url}/mcp`,
      `  agent token:   ${agent}`,
      `  device URL:    ${node.url}/?token=${device}`,
      `  ops URL:       ${node.url}/?token=${ops}`,
      '',
      'Point an MCP client at the endpoint with "Authorization: Bearer <agent token>";',
      'open the device URL to answer. More tokens: hitl token create --user U --role agent|device|ops',
      '',
    ].join('\n'),
  );
}

function stopOnSignals(node: RunningNode): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    node.logger.info({ signal }, 'stopping');
    node.close().then(
      () => process.exit(0),
      (error: unknown) => {
        node.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
