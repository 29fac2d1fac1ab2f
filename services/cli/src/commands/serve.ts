import { fileURLToPath } from 'node:url';
import { endLogOutput, type RunningNode, startNode } from '@hitl/inquiry';
import type { Command } from 'commander';
import { exitOnSetupError, loadConfigOrExit } from '../config-or-exit.js';
import { exitWithParent } from '../exit-with-parent.js';
import { startBanner, storeLabel, type WelcomeTokens } from './banner.js';

const WEB_ROOT = fileURLToPath(new URL('../../../../web/dist', import.meta.url));

/** `hitl serve`: runs the node in this very process, so signals and memory figures are its own. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Start an inquiry node (HTTP + MCP + Socket.IO on one port); configured by environment')
    .action(async () => {
      const config = loadConfigOrExit('serve');
      ignoreGoneReader(process.stdout);
      const node = await startNode(config, { webRoot: WEB_ROOT }).catch(exitOnSetupError('serve'));
      const embeddedOwnSecret = !config.secret && !config.redisUrl && !config.redisClusterNodes;
      const tokens = embeddedOwnSecret ? await welcomeTokens(node) : undefined;
      const signedIn = embeddedOwnSecret && (await hasSignedInDevice(node, WELCOME_USER));
      process.stdout.write(startBanner(node.url, storeLabel(config), tokens, { signedIn }));
      stopOnSignals(node);
    });
}

/** `npm start | head -1`, or `| tee` after Ctrl-C: a stdout nobody reads is no reason for the node to die. */
function ignoreGoneReader(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/** The user the ready-made tokens act for. */
const WELCOME_USER = 'demo';

async function welcomeTokens(node: RunningNode): Promise<WelcomeTokens> {
  return {
    agent: await node.tokens.sign({ sub: WELCOME_USER, role: 'agent', name: 'demo agent' }),
    device: await node.tokens.sign({ sub: WELCOME_USER, role: 'device', name: 'browser' }),
    ops: await node.tokens.sign({ sub: 'ops', role: 'ops' }),
  };
}

/** First signal: drain and exit 0 (1 if closing failed). Second signal: exit 1 at once. */
function stopOnSignals(node: RunningNode): void {
  let stopping = false;
  const exit = async (code: number) => {
    await endLogOutput(node.logger);
    process.exit(code);
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    node.logger.info({ signal }, 'stopping');
    node.close().then(
      () => exit(0),
      (error: unknown) => {
        node.logger.error({ err: error }, 'shutdown failed');
        return exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  exitWithParent();
}

/** True when `user` has a device on record whose token is neither revoked nor expired (it signed in before). */
async function hasSignedInDevice(node: RunningNode, user: string): Promise<boolean> {
  const now = Date.now();
  const devices = await node.devices.listDevices(user).catch(() => []);
  return devices.some(
    (device) =>
      (device.exp === undefined || device.exp * 1000 > now) &&
      !node.tokens.isRevoked({ sub: user, role: 'device', jti: device.jti, iat: device.iat }),
  );
}
