import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Users never see the design file, so no tracked file may point at it: code comments and docs state
 * the contract themselves, or point at our own docs (docs/OPERATIONS.md, docs/SECURITY.md, ...).
 * The patterns are built from parts so this file does not match itself.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NAME = ['DES', 'IGN'].join('');
const PATTERN = new RegExp(`${NAME} §|${NAME}\\.md`);

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));
}

/** Every `file:line` of a tracked text file that cites the design file. */
function designReferences(): string[] {
  const found: string[] = [];
  for (const file of trackedFiles()) {
    const bytes = readFileSync(join(ROOT, file));
    if (bytes.includes(0)) continue; // binary
    bytes
      .toString('utf8')
      .split('\n')
      .forEach((line, index) => {
        if (PATTERN.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe('no reference to the design file', () => {
  it('finds tracked files to check', () => {
    expect(trackedFiles()).toContain('docs/SECURITY.md');
  });

  it('no tracked file cites the design file (docs state the contract themselves)', () => {
    expect(designReferences()).toEqual([]);
  });
});
