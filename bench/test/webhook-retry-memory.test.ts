import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseLine } from '../src/core/summary.js';

const SCRIPT = fileURLToPath(new URL('../dist/webhook-retry-memory.js', import.meta.url));

/** Issue 34, finding 6: the measuring script runs, and the node's retry bodies stay within the cap. */
describe('webhook-retry-memory: what one token makes a node hold for a target that is down', () => {
  it('prints one line; the retry bodies held stay within the 4 MiB per-user cap', async () => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [SCRIPT, '--seconds', '4'], { timeout: 120_000 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
      ),
    );
    const report = parseLine(stdout.trim());
    expect(report?.scenario).toBe('webhook-retry-memory');
    const fields = report?.fields ?? {};
    expect(fields.mode).toBe('default-caps');
    expect(Number(fields.inquiries)).toBeGreaterThan(0);
    expect(Number(fields.argument_kb)).toBeGreaterThan(200);
    // The cap is enforced by count, not measured: this bound cannot flake.
    expect(Number(fields.retry_bytes_mb)).toBeGreaterThan(0);
    expect(Number(fields.retry_bytes_mb)).toBeLessThanOrEqual(4);
  }, 150_000);
});
