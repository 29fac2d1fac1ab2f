/** One value of a summary line. */
export type Field = number | string | boolean;
export type Fields = Record<string, Field>;

/** What a scenario reports: its figures plus `ok` (correctness held) and `goal` (met / missed). */
export interface ScenarioReport {
  scenario: string;
  fields: Fields;
}

const LINE_PREFIX = 'BENCH';

function formatValue(value: Field): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'NaN';
    return Number.isInteger(value) ? String(value) : String(Math.round(value * 1000) / 1000);
  }
  return String(value).replace(/\s+/g, '_');
}

/**
 * The one line a script reads: `BENCH scenario=<name> key=value ...`, no spaces inside values.
 *
 * @example
 * formatLine({ scenario: 'races', fields: { inquiries: 100000, ok: true } })
 * // 'BENCH scenario=races inquiries=100000 ok=true'
 */
export function formatLine(report: ScenarioReport): string {
  const parts = Object.entries(report.fields).map(([k, v]) => `${k}=${formatValue(v)}`);
  return [LINE_PREFIX, `scenario=${report.scenario}`, ...parts].join(' ');
}

/** Reads a line printed by {@link formatLine}; `undefined` for any other line. */
export function parseLine(line: string): ScenarioReport | undefined {
  const words = line.trim().split(' ');
  if (words[0] !== LINE_PREFIX) return undefined;
  const fields: Fields = {};
  let scenario = '';
  for (const word of words.slice(1)) {
    const at = word.indexOf('=');
    if (at < 0) continue;
    const key = word.slice(0, at);
    const raw = word.slice(at + 1);
    if (key === 'scenario') scenario = raw;
    else if (raw === 'true' || raw === 'false') fields[key] = raw === 'true';
    else if (raw !== '' && !Number.isNaN(Number(raw))) fields[key] = Number(raw);
    else fields[key] = raw;
  }
  return scenario ? { scenario, fields } : undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Folds repeated runs of one scenario: numbers → median, booleans → true only if true in every run
 * (so `ok` stays strict), strings → the value when all runs agree, else the values joined by `|`.
 */
export function medianReport(runs: ScenarioReport[]): ScenarioReport {
  const first = runs[0];
  if (!first) throw new Error('medianReport needs at least one run');
  const fields: Fields = { runs: runs.length };
  for (const key of Object.keys(first.fields)) {
    const values = runs.map((r) => r.fields[key]).filter((v) => v !== undefined);
    if (values.every((v) => typeof v === 'number')) fields[key] = median(values as number[]);
    else if (values.every((v) => typeof v === 'boolean')) fields[key] = values.every(Boolean);
    else fields[key] = [...new Set(values.map(String))].join('|');
  }
  return { scenario: first.scenario, fields };
}
