import type { Writable } from 'node:stream';
import { runAssistant } from '../agent/assistant.js';
import { type Brain, ruleBrain } from '../agent/brain.js';
import { connectInquiries, PATIENT_WAIT_MS } from '../agent/inquiry-channel.js';
import { llmBrain } from '../agent/llm-brain.js';
import { loadCatalogue } from '../catalogue/load.js';
import type { Catalogue } from '../catalogue/schema.js';
import { describeFacts, renderEvent } from '../transcript/render.js';
import { type CliArgs, mcpUrl, readArgs, USAGE } from './args.js';
import { agentToken } from './token.js';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: Writable;
  stderr: Writable;
  /** Aborting it (Ctrl-C) cancels the open question and ends the conversation. */
  signal?: AbortSignal;
  /** The catalogue to use (default: the one shipped in `data/`). */
  catalogue?: Catalogue;
}

/** Exit codes: 0 done (recommended or nothing found), 1 failed, 2 bad usage, 130 cancelled. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

function brainFor(env: Record<string, string | undefined>, stderr: Writable): Brain {
  if (!env.HITL_LLM_URL) return ruleBrain;
  return llmBrain({
    url: env.HITL_LLM_URL,
    model: env.HITL_LLM_MODEL || 'gpt-4o-mini',
    ...(env.HITL_LLM_API_KEY ? { apiKey: env.HITL_LLM_API_KEY } : {}),
    warn: (message) => stderr.write(`shopping-assistant: ${message}\n`),
  });
}

function describeFailure(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
  if (/ECONNREFUSED|fetch failed/.test(`${message} ${cause}`)) {
    return `cannot reach the inquiry service at ${url}; start it with "npm start" (or pass --url)`;
  }
  if (/\b401\b|unauthori[sz]ed/i.test(message)) {
    return `the inquiry service refused the agent token (${message}); set HITL_AGENT_TOKEN or HITL_SECRET`;
  }
  return message;
}

async function converse(args: CliArgs, io: CliIo, url: string): Promise<number> {
  const { token, warning } = await agentToken(io.env, args.user);
  if (warning) io.stderr.write(`shopping-assistant: ${warning}\n`);
  const catalogue = io.catalogue ?? (await loadCatalogue());
  const maxTotalTimeoutMs = Number(io.env.HITL_CLIENT_TIMEOUT_MS) || 90_000;
  const inquiries = await connectInquiries({
    url,
    token,
    maxTotalTimeoutMs,
    ...(args.patient ? { patient: { waitMs: PATIENT_WAIT_MS } } : {}),
  });
  const print = (lines: string[]) => io.stdout.write(`${lines.join('\n')}\n`);
  try {
    const result = await runAssistant(
      {
        catalogue,
        inquiries,
        brain: brainFor(io.env, io.stderr),
        ...(args.json ? {} : { emit: (event) => print(renderEvent(event)) }),
        ...(io.signal ? { signal: io.signal } : {}),
      },
      args.request,
      {
        style: args.style,
        count: args.count,
        ...(args.timeoutMs ? { timeoutMs: args.timeoutMs } : {}),
        ...(args.patient ? { answerWithinMs: args.answerWithinMs } : {}),
      },
    );
    if (args.json) print([JSON.stringify(result, null, 2)]);
    else print([`In short: ${describeFacts(result.facts)}`]);
    return result.ending === 'cancelled' ? EXIT.cancelled : EXIT.ok;
  } finally {
    await inquiries.close().catch(() => undefined);
  }
}

/** The demo's command line, with its I/O passed in (the bin wires it to the process). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let args: CliArgs;
  try {
    args = readArgs(argv);
  } catch (error) {
    io.stderr.write(
      `shopping-assistant: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`,
    );
    return EXIT.usage;
  }
  if (args.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }
  const url = mcpUrl(args, io.env);
  try {
    return await converse(args, io, url);
  } catch (error) {
    io.stderr.write(`shopping-assistant: ${describeFailure(error, url)}\n`);
    return EXIT.failed;
  }
}
