import { StateLockedError } from '@hitl/inquiry';
import {
  type BackendSpec,
  createProxyLogger,
  DEFAULT_POLICY,
  loadPolicy,
  type Policy,
  PolicyError,
  runStdioProxy,
  startProxy,
} from '@hitl/mcp-proxy';
import { UserIdSchema } from '@hitl/protocol';
import { ConfigError, loadConfig, redactUrl, SecretFileError } from '@hitl/runtime';
import { type Command, InvalidArgumentError } from 'commander';
import { exitWithParent } from '../exit-with-parent.js';

interface ProxyFlags {
  backendCmd?: string;
  backendUrl?: string;
  backendName?: string;
  backendHeader: string[];
  policy?: string;
  inquiryUrl: string;
  inquiryToken?: string;
  stdio?: boolean;
  user?: string;
}

/** The port the proxy takes when PORT is unset: the one after the inquiry node's default 8787. */
const DEFAULT_PROXY_PORT = '8788';

function header(value: string, previous: string[]): string[] {
  if (!/^[^:\s]+:.+$/.test(value)) throw new InvalidArgumentError('expected "Name: value"');
  return [...previous, value];
}

function userId(value: string): string {
  const parsed = UserIdSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'bad user id');
  return value;
}

function backendSpec(flags: ProxyFlags): BackendSpec {
  if (Boolean(flags.backendCmd) === Boolean(flags.backendUrl)) {
    throw new InvalidArgumentError('give exactly one of --backend-cmd and --backend-url');
  }
  const name = flags.backendName ? { name: flags.backendName } : {};
  if (flags.backendCmd) return { kind: 'command', command: flags.backendCmd, ...name };
  const url = flags.backendUrl ?? '';
  if (!URL.canParse(url)) {
    throw new InvalidArgumentError(`--backend-url: not a URL: ${redactUrl(url, { bare: true })}`);
  }
  const headers = Object.fromEntries(
    flags.backendHeader.map((h) => [h.slice(0, h.indexOf(':')).trim(), h.slice(h.indexOf(':') + 1).trim()]),
  );
  return { kind: 'url', url, ...name, ...(flags.backendHeader.length > 0 ? { headers } : {}) };
}

/** `hitl proxy`: the approval proxy in front of any MCP server, in this very process. */
export function registerProxy(program: Command): void {
  program
    .command('proxy')
    .description('Put a human approval gate in front of an MCP server (HTTP on PORT at /mcp, or --stdio)')
    .option('--backend-cmd <command>', 'the MCP server to spawn over stdio, e.g. "npx my-mcp-server"')
    .option('--backend-url <url>', 'the Streamable HTTP URL of the MCP server')
    .option('--backend-name <name>', 'the server name people see in approvals')
    .option(
      '--backend-header <header>',
      'an HTTP header for --backend-url, "Name: value" (repeatable)',
      header,
      [],
    )
    .option('--policy <file>', 'policy file, YAML or JSON (default: gated, threshold 0.7)')
    .option(
      '--inquiry-url <url>',
      'the inquiry node that asks people',
      process.env.HITL_INQUIRY_URL ?? 'http://127.0.0.1:8787',
    )
    .option(
      '--inquiry-token <token>',
      'agent token for the inquiry node instead of minting one (single user)',
    )
    .option('--stdio', 'serve MCP over stdin/stdout instead of HTTP (for hosts that spawn servers)')
    .option('--user <id>', 'with --stdio: the user whose devices approve (else HITL_AGENT_TOKEN)', userId)
    .action(async (flags: ProxyFlags) => {
      let backend: BackendSpec;
      let policy: Policy;
      let config: ReturnType<typeof loadConfig>;
      try {
        backend = backendSpec(flags);
        policy = flags.policy ? await loadPolicy(flags.policy) : DEFAULT_POLICY;
        config = loadConfig({ ...process.env, PORT: process.env.PORT ?? DEFAULT_PROXY_PORT });
      } catch (error) {
        if (
          error instanceof ConfigError ||
          error instanceof PolicyError ||
          error instanceof InvalidArgumentError
        ) {
          process.stderr.write(`hitl proxy: ${error.message}\n`);
          process.exit(2);
        }
        throw error;
      }
      const logger = createProxyLogger(config.logLevel, Boolean(flags.stdio));
      const common = {
        backend,
        policy,
        inquiryUrl: flags.inquiryUrl,
        config,
        logger,
        ...((flags.inquiryToken ?? process.env.HITL_INQUIRY_TOKEN)
          ? { inquiryToken: flags.inquiryToken ?? process.env.HITL_INQUIRY_TOKEN }
          : {}),
      };
      try {
        const running = flags.stdio
          ? await runStdioProxy({ ...common, userId: flags.user, agentToken: process.env.HITL_AGENT_TOKEN })
          : await startProxy(common);
        stopOnSignals(running, logger);
      } catch (error) {
        process.stderr.write(`hitl proxy: ${(error as Error).message}\n`);
        // Something the operator must fix (the state dir another proxy holds, an unsafe secret file): 2.
        process.exit(error instanceof StateLockedError || error instanceof SecretFileError ? 2 : 1);
      }
    });
}

function stopOnSignals(
  running: { close(): Promise<void> },
  logger: { info(o: object, m: string): void },
): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'stopping');
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  exitWithParent();
}
