import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicy, PolicyError } from '../src/policy/load-policy.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'proxy-policy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('policy files', () => {
  it('reads YAML and JSON alike', async () => {
    const yaml = await file(
      'p.yaml',
      'mode: gated\ncritical: [transfer_funds, "delete_*"]\nconfidenceThreshold: 0.8\ntools:\n  echo:\n    approvalTimeoutMs: 5000\n',
    );
    const json = await file(
      'p.json',
      JSON.stringify({
        mode: 'gated',
        critical: ['transfer_funds', 'delete_*'],
        confidenceThreshold: 0.8,
        tools: { echo: { approvalTimeoutMs: 5000 } },
      }),
    );
    const expected = {
      mode: 'gated',
      critical: ['transfer_funds', 'delete_*'],
      confidenceThreshold: 0.8,
      tools: { echo: { approvalTimeoutMs: 5000 } },
    };
    expect(await loadPolicy(yaml)).toEqual(expected);
    expect(await loadPolicy(json)).toEqual(expected);
  });

  it('names every bad field', async () => {
    const bad = await file(
      'bad.yaml',
      'mode: sometimes\nconfidenceThreshold: 1.5\napprovalWindowMs: 604800001\ntools:\n  "delete_*":\n    approvalTimeoutMs: 10\n    approvalWindowMs: 1.5\n    critcal: true\n',
    );
    const error = await loadPolicy(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyError);
    const message = (error as Error).message;
    expect(message).toContain(bad);
    expect(message).toMatch(/mode: /);
    expect(message).toContain('confidenceThreshold: must be between 0 and 1');
    expect(message).toContain('tools.delete_*.approvalTimeoutMs: must be at least 1000 ms');
    expect(message).toContain('approvalWindowMs: must be at most 604800000 ms (7 days)');
    expect(message).toContain('tools.delete_*.approvalWindowMs: must be a whole number of ms');
    expect(message).toMatch(/tools\.delete_\*.*critcal/);
  });

  it('says so when the file is missing or not YAML/JSON', async () => {
    await expect(loadPolicy(join(dir, 'nope.yaml'))).rejects.toThrow(/cannot read policy/);
    const broken = await file('broken.json', '{"mode": ');
    await expect(loadPolicy(broken)).rejects.toThrow(/not valid JSON/);
  });
});
