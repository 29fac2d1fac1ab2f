import { parseArgs } from 'node:util';
import { z } from 'zod';

export const DEFAULT_REQUEST = 'I need new running shoes for my marathon training';

/** The answer window of `--patient` when none is given: one day. */
export const DEFAULT_ANSWER_WINDOW_MS = 24 * 60 * 60 * 1000;

export const USAGE = `Usage: shopping-assistant [options] [request...]

A shopping assistant that asks the customer (through the HITL inquiry service) before it searches.

Options:
  --style rounds|form  rounds: one question at a time (default); form: one form with proposed defaults
  --json               print the whole conversation as JSON instead of a transcript
  --url <url>          the inquiry service (default $HITL_URL or http://127.0.0.1:$PORT, port 8787)
  --user <id>          who to ask, when the assistant signs its own token (default demo)
  --timeout-ms <ms>    how long each question stays open (default: the service's timeout)
  --patient            let the customer answer later: each question stays open for the answer window,
                       and the assistant collects the answer with get_inquiry (no call lasts over 60 s)
  --answer-within-ms <ms>
                       the answer window with --patient (default 86400000, one day; the node caps it)
  --count <n>          how many products to recommend (default 3)
  -h, --help           show this help

Environment: HITL_AGENT_TOKEN (else a token is signed with the node's secret: HITL_SECRET or
HITL_STATE_DIR), HITL_LLM_URL / HITL_LLM_MODEL / HITL_LLM_API_KEY (an OpenAI-compatible model phrases
questions and picks products), HITL_CLIENT_TIMEOUT_MS (longest wait for one reply, default 90000).
`;

const ArgsSchema = z.object({
  style: z.enum(['rounds', 'form']).default('rounds'),
  json: z.boolean().default(false),
  url: z.string().url().optional(),
  user: z.string().min(1).max(200).default('demo'),
  timeoutMs: z.coerce.number().int().min(1000).optional(),
  patient: z.boolean().default(false),
  answerWithinMs: z.coerce.number().int().min(1000).default(DEFAULT_ANSWER_WINDOW_MS),
  count: z.coerce.number().int().min(1).max(10).default(3),
  help: z.boolean().default(false),
  request: z.string().min(1).max(2000),
});
export type CliArgs = z.infer<typeof ArgsSchema>;

const FLAG_NAMES: Record<string, string> = {
  timeoutMs: '--timeout-ms',
  answerWithinMs: '--answer-within-ms',
};

/**
 * Reads the command line.
 * @throws Error naming the bad option, e.g. `--style: expected one of "rounds"|"form"`.
 */
export function readArgs(argv: string[]): CliArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      style: { type: 'string' },
      json: { type: 'boolean' },
      url: { type: 'string' },
      user: { type: 'string' },
      'timeout-ms': { type: 'string' },
      patient: { type: 'boolean' },
      'answer-within-ms': { type: 'string' },
      count: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const { 'timeout-ms': timeoutMs, 'answer-within-ms': answerWithinMs, ...rest } = values;
  const parsed = ArgsSchema.safeParse({
    ...rest,
    timeoutMs,
    answerWithinMs,
    // An answer window only makes sense for a patient assistant.
    ...(answerWithinMs !== undefined ? { patient: true } : {}),
    request: positionals.join(' ').trim() || DEFAULT_REQUEST,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '');
    throw new Error(`${FLAG_NAMES[key] ?? `--${key}`}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The MCP endpoint: `--url`, else `HITL_URL`, else the local node; `/mcp` is added when missing. */
export function mcpUrl(args: CliArgs, env: Record<string, string | undefined>): string {
  const base = args.url ?? env.HITL_URL ?? `http://127.0.0.1:${env.PORT || '8787'}`;
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith('/mcp') ? trimmed : `${trimmed}/mcp`;
}
