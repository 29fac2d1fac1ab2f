import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseLine } from '../src/core/summary.js';

const SCRIPT = fileURLToPath(new URL('../dist/file-size.js', import.meta.url));

describe('file-size: bytes of the SQLite state file per inquiry', () => {
  it('prints one line with the bytes per pending and per answered inquiry', async () => {
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [SCRIPT, '300'], { timeout: 120_000 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
      ),
    );
    const report = parseLine(stdout.trim());
    expect(report?.scenario).toBe('file-size');
    const fields = report?.fields ?? {};
    expect(fields.count).toBe(300);
    // A row holds its JSON body plus its index entries: more than the body, far less than a page.
    const body = Number(fields.body_bytes) / 1024;
    expect(Number(fields.pending_kb_per_inquiry)).toBeGreaterThan(body);
    expect(Number(fields.pending_kb_per_inquiry)).toBeLessThan(4);
    expect(Number(fields.answered_kb_per_inquiry)).toBeGreaterThanOrEqual(
      Number(fields.pending_kb_per_inquiry),
    );
  }, 150_000);
});
