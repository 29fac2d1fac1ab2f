import { fileURLToPath } from 'node:url';
import { type RunningNode, startNode } from '@hitl/inquiry';
import { endLogOutput } from '@hitl/runtime';
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
      const started = stopOnSignals();
      const node = await startNode(config, { webRoot: WEB_ROOT }).catch(exitOnSetupError('serve'));
      started(node);
      const embeddedOwnSecret = !config.secret && !config.redisUrl && !config.redisClusterNodes;
      const tokens = embeddedOwnSecret ? await welcomeTokens(node) : undefined;
      const signedIn = embeddedOwnSecret && (await hasSignedInDevice(node, WELCOME_USER));
      process.stdout.write(startBanner(node.url, storeLabel(config), tokens, { signedIn }));
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

/**
 * First signal: drain and exit 0 (1 if closing failed). Second signal: exit 1 at once. Installed
 * before the node starts, so a signal right after its 'node listening' line (what a supervisor waits
 * for) drains it too; one that comes while it starts stops it as soon as it is up. Returns what to
 * call with the started node.
 */
function stopOnSignals(): (node: RunningNode) => void {
  let node: RunningNode | undefined;
  let signalled: NodeJS.Signals | undefined;
  const exit = async (running: RunningNode, code: number) => {
    await endLogOutput(running.logger);
    process.exit(code);
  };
  const halt = (running: RunningNode, signal: NodeJS.Signals) => {
    running.logger.info({ signal }, 'stopping');
    running.close().then(
      () => exit(running, 0),
      (error: unknown) => {
        running.logger.error({ err: error }, 'shutdown failed');
        return exit(running, 1);
      },
    );
  };
  const stop = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = signal;
    if (node) halt(node, signal);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  exitWithParent();
  return (started) => {
    node = started;
    if (signalled) halt(started, signalled);
  };
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
