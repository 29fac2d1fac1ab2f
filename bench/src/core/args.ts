/** The scenarios `run.js` knows, in the order `all` runs them. */
export const SCENARIOS = [
  'baseline',
  'resume-same',
  'resume-cross',
  'resume-memory',
  'resume-sqlite',
  'fanout',
  'capacity',
  'capacity-memory',
  'capacity-sqlite',
  'capacity-get',
  'capacity-task',
  'capacity-proxy',
  'capacity-nodes',
  'throughput',
  'open-loop',
  'cpu-rate',
  'idle',
  'idle-held',
  'races',
  'scale-out',
  'standing',
  'paths',
  'paths-memory',
  'paths-sqlite',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface RunArgs {
  scenarios: ScenarioName[];
  quick: boolean;
  /** How many times the selection runs; with more than one, a median line per scenario follows. */
  repeat: number;
  /** Per-scenario overrides, `--set key=value` (numbers), e.g. `--set held=2000`. */
  overrides: Record<string, number>;
}

export const USAGE = `usage: node bench/dist/run.js [all|${SCENARIOS.join('|')}] [--quick] [--repeat N] [--set key=value]...`;

/** Parses the command line; throws with the usage text on anything it does not know. */
export function parseArgs(argv: string[]): RunArgs {
  const args: RunArgs = { scenarios: [...SCENARIOS], quick: false, repeat: 1, overrides: {} };
  let named: ScenarioName[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--quick') args.quick = true;
    else if (arg === '--repeat') args.repeat = positiveInt(argv[++i], '--repeat');
    else if (arg === '--set') {
      const [key, value] = (argv[++i] ?? '').split('=');
      const n = Number(value);
      if (!key || value === undefined || !Number.isFinite(n)) throw new Error(`--set key=number\n${USAGE}`);
      args.overrides[key] = n;
    } else if (arg === 'all') named = [...SCENARIOS];
    else if ((SCENARIOS as readonly string[]).includes(arg)) named = [...(named ?? []), arg as ScenarioName];
    else throw new Error(`unknown argument ${JSON.stringify(arg)}\n${USAGE}`);
  }
  if (named) args.scenarios = named;
  return args;
}

function positiveInt(raw: string | undefined, flag: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer\n${USAGE}`);
  return n;
}
