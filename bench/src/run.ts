/**
 * `node bench/dist/run.js [all|<scenario>...] [--quick] [--repeat N] [--set key=value]`
 * Runs the scenarios one after another, prints one `BENCH ...` line per scenario and run on stdout
 * (progress goes to stderr), then a median line per scenario when repeated. Exit code 1 when any
 * scenario failed or found a correctness fault.
 */
import { parseArgs } from './core/args.js';
import { type Fields, formatLine, medianReport, type ScenarioReport } from './core/summary.js';
import { openFileLimit } from './env/limits.js';
import { Cleanup, type ScenarioContext } from './scenarios/context.js';
import { SCENARIO_RUNNERS } from './scenarios/index.js';

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);

let active: Cleanup | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void (active?.run() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

async function main(): Promise<number> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 2;
  }
  log(`open-file limit ${openFileLimit() ?? 'unknown'}; ${args.quick ? 'quick' : 'full'} scale`);
  const runs = new Map<string, ScenarioReport[]>();
  let failed = false;
  for (let r = 1; r <= args.repeat; r++) {
    let baseline: Fields | undefined;
    for (const name of args.scenarios) {
      const cleanup = new Cleanup();
      active = cleanup;
      const ctx: ScenarioContext = {
        quick: args.quick,
        overrides: args.overrides,
        baseline,
        cleanup,
        log: (m) => log(`${name}: ${m}`),
      };
      const started = Date.now();
      let fields: Fields;
      try {
        fields = await SCENARIO_RUNNERS[name](ctx);
      } catch (error) {
        log(`${name} failed: ${(error as Error).stack ?? error}`);
        fields = { ok: false, error: String((error as Error).message ?? error).slice(0, 200) };
      } finally {
        await cleanup.run();
      }
      if (name === 'baseline' && fields.ok) baseline = fields;
      fields = { run: r, ...fields, seconds: Math.round((Date.now() - started) / 100) / 10 };
      if (fields.ok !== true) failed = true;
      const report = { scenario: name, fields };
      process.stdout.write(`${formatLine(report)}\n`);
      runs.set(name, [...(runs.get(name) ?? []), report]);
    }
  }
  if (args.repeat > 1) {
    for (const reports of runs.values()) {
      const median = medianReport(reports);
      median.fields.run = 'median';
      process.stdout.write(`${formatLine(median)}\n`);
    }
  }
  return failed ? 1 : 0;
}

process.exitCode = await main();
