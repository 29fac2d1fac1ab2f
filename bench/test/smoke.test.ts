import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCENARIOS } from '../src/core/args.js';
import { type Fields, parseLine } from '../src/core/summary.js';

const RUN = fileURLToPath(new URL('../dist/run.js', import.meta.url));

/** Runs `node dist/run.js all --quick` once (the built runner, as `npm run bench` does). */
function runQuick(): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [RUN, 'all', '--quick'],
      { timeout: 540_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ stdout, stderr, code: error ? Number(error.code ?? 1) : 0 }),
    );
  });
}

describe('bench smoke: every scenario at --quick scale', () => {
  const reports = new Map<string, Fields>();
  let output = '';
  beforeAll(async () => {
    const { stdout, stderr } = await runQuick();
    output = `${stdout}\n${stderr.slice(-4000)}`;
    for (const line of stdout.split('\n')) {
      const report = parseLine(line);
      if (report) reports.set(report.scenario, report.fields);
    }
  }, 600_000);

  it.each(SCENARIOS)('%s prints one summary line and finds no correctness fault', (scenario) => {
    const fields = reports.get(scenario);
    expect(fields, output).toBeDefined();
    expect(fields?.faults ?? 0, output).toBe(0);
    expect(fields?.ok, output).toBe(true);
    expect(['met', 'missed']).toContain(fields?.goal ?? 'met');
  });

  it('latency scenarios report percentiles and a ratio to the baseline of the same run', () => {
    for (const scenario of ['resume-same', 'resume-cross']) {
      const fields = reports.get(scenario) ?? {};
      expect(Number(fields.p50_ms)).toBeGreaterThan(0);
      expect(Number(fields.p99_ms)).toBeGreaterThanOrEqual(Number(fields.p50_ms));
      expect(Number(fields.ratio_p50)).toBeGreaterThan(0);
    }
    expect(Number(reports.get('baseline')?.redis_p50_ms)).toBeGreaterThan(0);
    expect(reports.get('resume-cross')?.floor).toBe('hono');
  });

  it.each(['paths', 'paths-memory', 'paths-sqlite'])(
    '%s ran every answer path, with node CPU per cycle and ratios to the device answer',
    (scenario) => {
      const fields = reports.get(scenario) ?? {};
      for (const path of ['device', 'chat', 'slack']) {
        expect(Number(fields[`${path}_cycles`])).toBeGreaterThan(0);
        expect(Number(fields[`${path}_cpu_per_cycle_ms`])).toBeGreaterThan(0);
        expect(Number(fields[`${path}_p99_ms`])).toBeGreaterThanOrEqual(Number(fields[`${path}_p50_ms`]));
      }
      for (const path of ['chat', 'slack']) {
        expect(Number(fields[`${path}_cpu_ratio`])).toBeGreaterThan(0);
        expect(Number(fields[`${path}_p50_ratio`])).toBeGreaterThan(0);
      }
    },
  );

  it.each(SCENARIOS.filter((scenario) => scenario.startsWith('capacity')))(
    '%s held every call it parked and measured memory per call',
    (scenario) => {
      const fields = reports.get(scenario) ?? {};
      expect(fields.held).toBe(fields.held_target);
      expect(fields.answered).toBe(fields.held);
      expect(Number(fields.rss_per_call_kb)).toBeGreaterThan(0);
    },
  );

  it('open-loop ran every scheduled call to its own answer and timed answer→resume', () => {
    const fields = reports.get('open-loop') ?? {};
    expect(Number(fields.scheduled)).toBeGreaterThan(0);
    expect(fields.completed).toBe(fields.scheduled);
    expect(Number(fields.resume_p99_ms)).toBeGreaterThanOrEqual(Number(fields.resume_p50_ms));
  });

  it('cpu-rate ran both offered rates and counted node CPU per cycle; idle measured every store', () => {
    const rate = reports.get('cpu-rate') ?? {};
    for (const offered of [10, 100]) {
      expect(Number(rate[`cycles_at_${offered}`])).toBeGreaterThan(0);
      expect(Number(rate[`cpu_ms_per_cycle_at_${offered}`])).toBeGreaterThan(0);
    }
    const idle = reports.get('idle') ?? {};
    for (const store of ['memory', 'sqlite', 'redis'])
      expect(Number(idle[`${store}_ms_per_s`])).toBeGreaterThan(0);
    const held = reports.get('idle-held') ?? {};
    expect(held.answered).toBe(held.held);
    expect(Number(held.parked_ms_per_s)).toBeGreaterThanOrEqual(0);
  });

  it('capacity-proxy held approvals at a real proxy, then as many send_inquiry calls, and compared them', () => {
    const fields = reports.get('capacity-proxy') ?? {};
    expect(fields.send_answered).toBe(fields.held);
    // The heap after a full GC grows with every held call; RSS at this scale (a few MB) moves with
    // what the allocator returns to the system, so its sign is not a correctness check.
    expect(Number(fields.send_heap_per_call_kb)).toBeGreaterThan(0);
    expect(Number(fields.heap_per_call_kb)).toBeGreaterThan(0);
    expect(Number.isFinite(Number(fields.proxy_to_send))).toBe(true);
  });

  it('capacity on SQLite measured the file per pending inquiry', () => {
    expect(Number(reports.get('capacity-sqlite')?.file_per_inquiry_kb)).toBeGreaterThan(0);
  });

  it('races: every inquiry had exactly one winner and both waiters released', () => {
    const fields = reports.get('races') ?? {};
    expect(fields.waiters_released).toBe(2 * Number(fields.inquiries));
    expect(Number(fields.wins_answer) + Number(fields.wins_timeout) + Number(fields.wins_cancel)).toBe(
      fields.inquiries,
    );
  });
});
