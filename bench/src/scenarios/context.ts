import type { Fields } from '../core/summary.js';

/** What the runner hands each scenario. */
export interface ScenarioContext {
  quick: boolean;
  overrides: Record<string, number>;
  /** The baseline measured earlier in this run, when there was one (latency ratios use it). */
  baseline?: Fields;
  /** Stops what the scenario started, newest first, even when it fails. */
  cleanup: Cleanup;
  log(message: string): void;
}

export type Scenario = (ctx: ScenarioContext) => Promise<Fields>;

/** A scale knob: `--set name=N` wins, else the quick or the full value. */
export function param(ctx: ScenarioContext, name: string, scale: { quick: number; full: number }): number {
  return ctx.overrides[name] ?? (ctx.quick ? scale.quick : scale.full);
}

/** Teardown steps, run newest first; each one's failure is ignored so the rest still run. */
export class Cleanup {
  private readonly steps: (() => Promise<unknown> | unknown)[] = [];

  add(step: () => Promise<unknown> | unknown): void {
    this.steps.push(step);
  }

  async run(): Promise<void> {
    while (this.steps.length > 0) {
      const step = this.steps.pop() as () => Promise<unknown>;
      try {
        await step();
      } catch {}
    }
  }
}

/** Adds up fault counts from several load generators. */
export function sumFaults(all: Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const counts of all) for (const [k, v] of Object.entries(counts)) total[k] = (total[k] ?? 0) + v;
  return total;
}

/** `faults=0` or `faults=3` plus `fault_<kind>=n` fields, and `ok`. */
export function faultFields(faults: Record<string, number>): Fields {
  const total = Object.values(faults).reduce((a, b) => a + b, 0);
  const fields: Fields = { faults: total };
  for (const [kind, n] of Object.entries(faults)) fields[`fault_${kind}`] = n;
  return fields;
}
