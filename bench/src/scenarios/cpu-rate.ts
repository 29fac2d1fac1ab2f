import type { Fields } from '../core/summary.js';
import { param, type ScenarioContext } from './context.js';
import { runOpenLoop } from './open-loop.js';

/** Issue 41: node CPU per full cycle at an offered rate (cycles/s → ms), both nodes together. */
const GOALS = [
  { rate: 10, msPerCycle: 3 },
  { rate: 100, msPerCycle: 1.5 },
] as const;

/**
 * What a full cycle costs the nodes at the rates people run (a few a second, not saturation):
 * `open-loop` at 10 and then 100 cycles/s offered, each on 2 fresh nodes on a fresh Redis, the call on
 * one node and the device on the other; the nodes' own CPU time over the measured window divided
 * by the cycles completed in it (idle costs included: at a low rate they are part of each cycle).
 * `--set cpuprof=1` writes CPU profiles of both nodes per rate.
 */
export async function cpuRate(ctx: ScenarioContext): Promise<Fields> {
  const durationMs = param(ctx, 'durationMs', { quick: 3000, full: 20_000 });
  const fields: Fields = {};
  let met = true;
  let faults = 0;
  let ok = true;
  for (const goal of GOALS) {
    const run = await runOpenLoop(ctx, goal.rate, { durationMs });
    await ctx.cleanup.run();
    const perCycle = run.nodeCpuMs / Math.max(1, run.completed);
    ctx.log(`${goal.rate}/s: ${perCycle.toFixed(2)} ms node CPU per cycle (${run.completed} cycles)`);
    fields[`cycles_at_${goal.rate}`] = run.completed;
    fields[`cpu_ms_per_cycle_at_${goal.rate}`] = perCycle;
    fields[`resume_p50_ms_at_${goal.rate}`] = Number(run.fields.resume_p50_ms);
    faults += run.faults;
    ok &&= run.fields.ok === true;
    met &&= perCycle <= goal.msPerCycle;
  }
  return { ...fields, faults, ok, goal: met && faults === 0 ? 'met' : 'missed' };
}
