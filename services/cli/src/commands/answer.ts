import { createDeviceClient } from '@hitl/client';
import type { Command } from 'commander';
import { fetchHistory, historyLines } from '../answer/history.js';
import { parseAnswerOptions } from '../answer/options.js';
import { claimPairing, parsePairOption } from '../answer/pairing.js';
import { runTerminalDevice } from '../answer/terminal-device.js';
import { exitWithParent } from '../exit-with-parent.js';

const DEFAULT_URL = 'http://127.0.0.1:8787';

/**
 * `hitl answer`: this terminal becomes one of the user's devices (like the web page or the phone):
 * questions arrive as they are asked, the person answers, refuses or fills a form with the keyboard.
 */
export function registerAnswer(program: Command): void {
  program
    .command('answer')
    .description('Answer inquiries from this terminal, as one of your devices')
    .option('--url <url>', 'the node to connect to (default: HITL_URL, else http://127.0.0.1:8787)')
    .option('--token <token>', 'a device token (default: HITL_DEVICE_TOKEN; the variable keeps it out of ps)')
    .option('--name <deviceName>', 'what your other devices call this one', 'Terminal')
    .option(
      '--pair <url or code>',
      'sign this terminal in with a pairing link or code from "Add a device" on a signed-in device',
    )
    .option('--history', 'print your past inquiries (what was answered, on which device, when) and exit')
    .action(async (raw: { url?: string; token?: string; name: string; history?: boolean; pair?: string }) => {
      let url = raw.url ?? process.env.HITL_URL ?? DEFAULT_URL;
      let token = raw.token ?? process.env.HITL_DEVICE_TOKEN;
      if (raw.pair !== undefined) {
        const paired = await pairTerminal(raw.pair, url, raw.name);
        url = paired.url;
        token = paired.token;
      }
      const parsed = parseAnswerOptions({ url, token, name: raw.name });
      if (!parsed.ok) {
        process.stderr.write(`hitl answer: ${parsed.problem}\n`);
        process.exit(2);
      }
      if (raw.history) {
        const history = await fetchHistory(parsed.options.url, parsed.options.token).catch(
          (error: unknown) => ({ ok: false as const, status: 0, problem: String(error) }),
        );
        if (!history.ok) {
          process.stderr.write(`hitl answer: the node refused the history: ${history.problem}\n`);
          process.exitCode = history.status === 401 || history.status === 403 ? 2 : 1;
          return;
        }
        process.stdout.write(`${historyLines(history.items).join('\n')}\n`);
        return;
      }
      exitWithParent();
      const code = await runTerminalDevice(
        parsed.options,
        {
          input: process.stdin,
          output: process.stdout,
          isTTY: Boolean(process.stdin.isTTY && process.stdout.isTTY),
        },
        { createClient: createDeviceClient, now: Date.now, signals: process },
      );
      process.exitCode = code;
      // Everything is closed by now, so the process ends by itself; this only guards against a leak.
      setTimeout(() => {
        process.stderr.write('hitl answer: something kept the process alive; exiting anyway\n');
        process.exit(code);
      }, 3000).unref();
    });
}

/**
 * `--pair`: claims the code and hands back the node and the new token; exits 2 naming the problem
 * otherwise. The token is printed to stderr once, so the person can answer again without pairing.
 */
async function pairTerminal(
  value: string,
  fallbackUrl: string,
  deviceName: string,
): Promise<{ url: string; token: string }> {
  const fail = (problem: string): never => {
    process.stderr.write(`hitl answer: ${problem}\n`);
    process.exit(2);
  };
  const target = parsePairOption(value, fallbackUrl);
  if (!target.ok) return fail(target.problem);
  const claimed = await claimPairing(target.target, deviceName.trim()).catch((error: unknown) => ({
    ok: false as const,
    problem: `could not reach ${target.target.origin}: ${String(error)}`,
  }));
  if (!claimed.ok) return fail(claimed.problem);
  process.stderr.write(
    `hitl answer: paired as "${deviceName.trim()}" for ${claimed.user}. Next time, without a new code:\n` +
      `  HITL_DEVICE_TOKEN=${claimed.token} npx hitl answer --url ${target.target.origin}\n`,
  );
  return { url: target.target.origin, token: claimed.token };
}
