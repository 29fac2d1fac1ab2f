import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DirectorySchema } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadPolicy, parsePolicy } from '../src/policy/load-policy.js';

/** The sample docs/PROXY.md's first command uses as written (`--policy examples/policy.yaml`). */
const SAMPLE = fileURLToPath(new URL('../../../examples/policy.yaml', import.meta.url));
const DIRECTORY = fileURLToPath(new URL('../../../examples/directory.yaml', import.meta.url));

/** The sample with its commented-out settings (`# key: value` at the start of a line) switched on. */
const uncommented = (text: string) => text.replace(/^# (\w+: \S+)$/gm, '$1');

describe('examples/policy.yaml', () => {
  it('loads through the proxy policy loader as the docs describe it', async () => {
    const policy = await loadPolicy(SAMPLE);
    expect(policy).toMatchObject({ mode: 'gated', confidenceThreshold: 0.7, approvalTimeoutMs: 30_000 });
    expect(policy.critical).toContain('delete_*');
    expect(policy.tools.wire_money).toEqual({ approvers: { team: 'treasury' }, quorum: 2 });
  });

  it('its commented-out settings are valid too once switched on', async () => {
    const text = uncommented(await readFile(SAMPLE, 'utf8'));
    expect(text).toMatch(/^approvalWindowMs: 86400000$/m);
    expect(parsePolicy(parseYaml(text), 'uncommented sample')).toMatchObject({
      approvalWindowMs: 86_400_000,
    });
  });

  it('every team it names as approvers is a team of examples/directory.yaml', async () => {
    const policy = await loadPolicy(SAMPLE);
    const directory = DirectorySchema.parse(parseYaml(await readFile(DIRECTORY, 'utf8')));
    const teams = Object.values(policy.tools).flatMap((tool) =>
      tool.approvers?.team ? [tool.approvers.team] : [],
    );
    expect(teams.length).toBeGreaterThan(0);
    for (const team of teams) expect(Object.keys(directory.teams)).toContain(team);
  });
});
